//! Offline verification of a Sigstore bundle (npm's provenance, PyPI's PEP 740 attestations)
//! against a trusted root (`sigstore_root`; the bundle's shapes are read in `sigstore_bundle`). What is
//! checked, in order:
//!
//! 1. the transparency-log entry: its log is one of the root's Rekor logs, valid at the entry's
//!    integrated time, and the log's key signed the entry (the signed entry timestamp, or
//!    inclusion promise, over the canonical body, integrated time, log ID and index);
//! 2. the entry is about this very envelope: its body names the bundle's signature, certificate
//!    and payload hash;
//! 3. the leaf certificate chains to one of the root's Fulcio authorities and was valid at the
//!    integrated time, for code signing (webpki);
//! 4. the DSSE signature over the envelope's pre-authentication encoding, with the leaf's key;
//! 5. the leaf's Fulcio extensions are read as the publisher (issuer, source repository,
//!    workflow, commit).
//!
//! Not checked: certificate revocation, the freshness of the embedded root (Sigstore's TUF
//! repository is not asked), the log's consistency (no checkpoint or inclusion proof is verified),
//! and entries that carry no signed entry timestamp (Rekor v2's) are refused as unverifiable.

use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_ASN1};
use rustls_pki_types::{CertificateDer, UnixTime};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::der;
use super::sigstore_bundle::{b64, fail, unverifiable, Failure, LogEntry, Signed};
use super::sigstore_root::TrustedRoot;

/// X.509 extended key usage for code signing (1.3.6.1.5.5.7.3.3), as DER contents.
const CODE_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03];
/// Fulcio's extensions, 1.3.6.1.4.1.57264.1.<n>: the OID contents without the last arc.
const FULCIO_ARC: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xbf, 0x30, 0x01];

/// What the certificate says of who signed: Fulcio's OIDC extensions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Identity {
    pub issuer: Option<String>,
    pub repository: Option<String>,
    /// The workflow that ran the build (`…/.github/workflows/x.yml@refs/tags/v1`).
    pub workflow: Option<String>,
    pub commit: Option<String>,
}

/// Verifies `signed` against `root`; the certificate's identity when every check passed.
pub(super) fn verify(signed: &Signed, root: &TrustedRoot) -> Result<Identity, Failure> {
    let t = signed.entry.integrated_time;
    // 1. The log's promise.
    log_promise(&signed.entry, root)?;
    // 2. The entry is about this envelope.
    body_names(signed, &signed.entry.body_b64)?;
    // 3. The chain at the integrated time.
    let leaf = CertificateDer::from(signed.certificate.as_slice());
    let cert = webpki::EndEntityCert::try_from(&leaf)
        .map_err(|e| Failure::new(format!("the certificate: {e}")))?;
    chains_at(&cert, root, t)?;
    // 4. The envelope's signature.
    let pae = pae(&signed.payload_type, &signed.payload);
    let signature_ok = [
        webpki::ring::ECDSA_P256_SHA256,
        webpki::ring::ECDSA_P384_SHA384,
    ]
    .iter()
    .any(|alg| cert.verify_signature(*alg, &pae, &signed.signature).is_ok());
    if !signature_ok {
        return fail("the envelope's signature (with the certificate's key)");
    }
    // 5. Who the certificate says signed.
    Ok(identity(&signed.certificate))
}

/// The entry's log is one of the root's Rekor logs at its time, and that log's key signed the
/// entry (its signed entry timestamp).
fn log_promise(entry: &LogEntry, root: &TrustedRoot) -> Result<(), Failure> {
    let t = entry.integrated_time;
    let Some(log) = root
        .logs
        .iter()
        .find(|l| l.key_id == entry.log_id && l.valid.covers(t))
    else {
        return fail("the transparency-log entry: its log is not a trusted Rekor log at its time");
    };
    let Some(promise) = &entry.promise else {
        return unverifiable("the transparency-log entry: it has no signed entry timestamp");
    };
    let key = der::spki_key(&log.spki).filter(|_| log.ecdsa_p256);
    let Some(key) = key else {
        return unverifiable("the transparency-log entry: its log's key is not ECDSA P-256");
    };
    // The canonical JSON Rekor signs: keys in order, no spaces.
    let signed_entry = format!(
        r#"{{"body":"{}","integratedTime":{t},"logID":"{}","logIndex":{}}}"#,
        entry.body_b64,
        hex::encode(&entry.log_id),
        entry.log_index
    );
    if UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, key)
        .verify(signed_entry.as_bytes(), promise)
        .is_err()
    {
        return fail("the transparency-log entry's signed timestamp (Rekor's signature)");
    }
    Ok(())
}

/// The leaf chains to one of the root's Fulcio authorities valid at `t`, and was valid then for
/// code signing.
fn chains_at(cert: &webpki::EndEntityCert<'_>, root: &TrustedRoot, t: i64) -> Result<(), Failure> {
    let when = UnixTime::since_unix_epoch(std::time::Duration::from_secs(
        u64::try_from(t).unwrap_or_default(),
    ));
    let mut why = String::from("no Fulcio authority of the root was valid then");
    let chained = root
        .authorities
        .iter()
        .filter(|a| a.valid.covers(t))
        .any(|a| {
            let Some((root_der, intermediates)) = a.chain.split_last() else {
                return false;
            };
            let root_cert = CertificateDer::from(root_der.as_slice());
            let Ok(anchor) = webpki::anchor_from_trusted_cert(&root_cert) else {
                return false;
            };
            let intermediates: Vec<CertificateDer<'_>> = intermediates
                .iter()
                .map(|c| CertificateDer::from(c.as_slice()))
                .collect();
            cert.verify_for_usage(
                webpki::ALL_VERIFICATION_ALGS,
                &[anchor],
                &intermediates,
                when,
                webpki::KeyUsage::required(CODE_SIGNING),
                None,
                None,
            )
            .map_err(|e| why = e.to_string())
            .is_ok()
        });
    if !chained {
        return fail(format!(
            "the certificate: it does not chain to a trusted Fulcio authority, valid for code \
             signing at the log's time ({why})"
        ));
    }
    Ok(())
}

/// DSSE's pre-authentication encoding of a payload.
fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out
}

/// The log entry's body (Rekor's `intoto` 0.0.2 or `dsse` 0.0.1) names the bundle's signature,
/// certificate and payload.
fn body_names(signed: &Signed, body_b64: &str) -> Result<(), Failure> {
    let wrong = |what: &str| {
        fail(format!(
            "the transparency-log entry: it names another {what}"
        ))
    };
    let body: Value = b64(body_b64)
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| Failure::new("the transparency-log entry: its body is not JSON"))?;
    let spec = &body["spec"];
    let (signatures, payload_hash) = match body["kind"].as_str() {
        Some("intoto") => (
            &spec["content"]["envelope"]["signatures"],
            &spec["content"]["payloadHash"],
        ),
        Some("dsse") => (&spec["signatures"], &spec["payloadHash"]),
        other => {
            return unverifiable(format!(
                "the transparency-log entry: kind {other:?} is not read"
            ))
        }
    };
    let want_hash = hex::encode(Sha256::digest(&signed.payload));
    if payload_hash["value"].as_str() != Some(want_hash.as_str()) {
        return wrong("payload");
    }
    let one = signatures.as_array().and_then(|s| s.first());
    let Some(one) = one else {
        return wrong("signature");
    };
    // `intoto` keeps the envelope's base64 signature base64-encoded again; `dsse` once.
    let sig = one["sig"]
        .as_str()
        .or(one["signature"].as_str())
        .and_then(b64);
    let sig_matches = sig.is_some_and(|s| {
        s == signed.signature
            || b64(&String::from_utf8_lossy(&s)).is_some_and(|s| s == signed.signature)
    });
    if !sig_matches {
        return wrong("signature");
    }
    let pem = one["publicKey"]
        .as_str()
        .or(one["verifier"].as_str())
        .and_then(b64)
        .map(|p| String::from_utf8_lossy(&p).into_owned());
    let cert = pem.and_then(|p| {
        let body: String = p.lines().filter(|l| !l.starts_with("-----")).collect();
        b64(&body)
    });
    if cert.as_deref() != Some(signed.certificate.as_slice()) {
        return wrong("certificate");
    }
    Ok(())
}

/// Fulcio's OIDC extensions of a leaf certificate.
pub(super) fn identity(certificate: &[u8]) -> Identity {
    let mut id = Identity::default();
    let mut issuer_v1 = None;
    let mut build_signer = None;
    for (oid, value) in der::extensions(certificate) {
        let Some(arc) = oid.strip_prefix(FULCIO_ARC) else {
            continue;
        };
        let text = der::text(&value);
        match arc {
            [1] => issuer_v1 = text,
            [8] => id.issuer = text,
            [9] => build_signer = text,
            [12] => id.repository = text,
            [13] => id.commit = text,
            [18] => id.workflow = text,
            _ => {}
        }
    }
    id.issuer = id.issuer.or(issuer_v1);
    id.workflow = id.workflow.or(build_signer);
    id
}

#[cfg(test)]
mod tests {
    use super::super::sigstore_bundle::{from_npm_bundle, from_pypi_attestation};
    use super::*;

    /// Bundles signed under a test root by tests/data/provenance/generate.py.
    const ROOT: &str = include_str!("../../tests/data/provenance/trusted_root.json");
    const NPM: &str = include_str!("../../tests/data/provenance/npm_attestations.json");
    const PYPI: &str = include_str!("../../tests/data/provenance/pypi_provenance.json");
    const LATE: &str = include_str!("../../tests/data/provenance/npm_bundle_logged_late.json");

    fn npm() -> Signed {
        let document: Value = serde_json::from_str(NPM).unwrap();
        from_npm_bundle(&document["attestations"][0]["bundle"]).unwrap()
    }

    fn pypi() -> Signed {
        let document: Value = serde_json::from_str(PYPI).unwrap();
        from_pypi_attestation(&document["attestation_bundles"][0]["attestations"][0]).unwrap()
    }

    fn root() -> TrustedRoot {
        TrustedRoot::from_json(ROOT).unwrap()
    }

    #[test]
    fn genuine_bundles_verify_and_name_their_publisher() {
        for signed in [npm(), pypi()] {
            let id = verify(&signed, &root()).unwrap();
            assert_eq!(
                id,
                Identity {
                    issuer: Some("https://token.actions.githubusercontent.com".into()),
                    repository: Some("https://github.com/example-org/example-server".into()),
                    workflow: Some(
                        "https://github.com/example-org/example-server/.github/workflows/release.yml@refs/tags/v1.0.0"
                            .into()
                    ),
                    commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                }
            );
        }
    }

    fn flip(bytes: &mut [u8], at: usize) {
        bytes[at] ^= 0x01;
    }

    #[test]
    fn one_changed_byte_fails_naming_the_part() {
        let expect = |signed: &Signed, part: &str| {
            let what = verify(signed, &root()).unwrap_err().what;
            assert!(what.contains(part), "{part}: {what}");
        };
        for genuine in [npm(), pypi()] {
            let mut s = genuine.clone();
            let middle = s.payload.len() / 2;
            flip(&mut s.payload, middle);
            expect(&s, "names another payload");
            let mut s = genuine.clone();
            let last = s.signature.len() - 1;
            flip(&mut s.signature, last);
            expect(&s, "names another signature");
            let mut s = genuine.clone();
            let last = s.certificate.len() - 1;
            flip(&mut s.certificate, last);
            expect(&s, "names another certificate");
            let mut s = genuine.clone();
            s.entry.integrated_time += 1;
            expect(&s, "signed timestamp");
            let mut s = genuine.clone();
            let promise = s.entry.promise.as_mut().unwrap();
            let last = promise.len() - 1;
            flip(promise, last);
            expect(&s, "signed timestamp");
        }
    }

    /// Past the log's check, each of the other checks on its own: the log entry re-signed as
    /// Rekor would for an envelope the signer never signed, or a certificate of another authority.
    #[test]
    fn the_chain_and_the_envelope_signature_are_checked_on_their_own() {
        // The envelope's signature over a changed payload type (not part of the log's body).
        let mut s = npm();
        s.payload_type = "application/json".into();
        let what = verify(&s, &root()).unwrap_err().what;
        assert!(what.contains("envelope's signature"), "{what}");
        // Sigstore's public-good root does not know the test log.
        let what = verify(&npm(), &TrustedRoot::public_good().unwrap())
            .unwrap_err()
            .what;
        assert!(what.contains("not a trusted Rekor log"), "{what}");
        // A root with the test log but public-good's Fulcio: the chain fails.
        let mut mixed = TrustedRoot::public_good().unwrap();
        mixed.logs = root().logs;
        let what = verify(&npm(), &mixed).unwrap_err().what;
        assert!(what.contains("does not chain"), "{what}");
        // Logged (genuinely) an hour after the certificate expired.
        let late: Value = serde_json::from_str(LATE).unwrap();
        let what = verify(&from_npm_bundle(&late).unwrap(), &root())
            .unwrap_err()
            .what;
        assert!(
            what.contains("valid for code signing at the log's time"),
            "{what}"
        );
    }

    /// PyPI's provenance of `pypi_attestations-0.0.19.tar.gz` (its sha256 `9bb1add0…`, as PyPI
    /// lists the file), signed by Sigstore's public-good Fulcio and logged in its Rekor on
    /// 2024-12-04: verified with the embedded root alone.
    const REAL_PYPI: &str =
        include_str!("../../tests/data/provenance/pypi_attestations-0.0.19.tar.gz.provenance.json");

    fn real() -> Signed {
        let document: Value = serde_json::from_str(REAL_PYPI).unwrap();
        from_pypi_attestation(&document["attestation_bundles"][0]["attestations"][0]).unwrap()
    }

    #[test]
    fn a_real_bundle_verifies_against_the_embedded_public_good_root() {
        let id = verify(&real(), &TrustedRoot::public_good().unwrap()).unwrap();
        assert_eq!(
            id,
            Identity {
                issuer: Some("https://token.actions.githubusercontent.com".into()),
                repository: Some("https://github.com/trailofbits/pypi-attestations".into()),
                workflow: Some(
                    "https://github.com/trailofbits/pypi-attestations/.github/workflows/release.yml@refs/tags/v0.0.19"
                        .into()
                ),
                commit: Some("08802efe1f8e5fec4ad842d6b8ce97656092ee72".into()),
            }
        );
        // One byte of its signature, certificate or statement changed: refused.
        let root = TrustedRoot::public_good().unwrap();
        let mut s = real();
        flip(&mut s.signature, 10);
        assert!(verify(&s, &root).unwrap_err().what.contains("signature"));
        let mut s = real();
        flip(&mut s.certificate, 300);
        assert!(verify(&s, &root).unwrap_err().what.contains("certificate"));
        let mut s = real();
        flip(&mut s.payload, 40);
        assert!(verify(&s, &root).unwrap_err().what.contains("payload"));
        // Under the test root instead: not its log.
        assert!(verify(&real(), &root_of_tests()).is_err());
    }

    fn root_of_tests() -> TrustedRoot {
        root()
    }

    #[test]
    fn a_bundle_without_a_signed_entry_timestamp_is_refused() {
        let mut s = npm();
        s.entry.promise = None;
        let failure = verify(&s, &root()).unwrap_err();
        assert!(
            failure.what.contains("no signed entry timestamp"),
            "{}",
            failure.what
        );
        assert!(failure.unverifiable);
    }
}
