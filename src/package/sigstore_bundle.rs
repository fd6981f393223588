//! A Sigstore bundle read into the one signed statement verification checks (its payload, the
//! envelope's signature, the leaf certificate, the transparency-log entry), from either shape it
//! comes in: npm's attestation bundle and PyPI's PEP 740 attestation; and why a bundle failed.

use base64::Engine;
use serde_json::Value;

/// One signed statement as a bundle carries it, whatever the bundle's JSON shape.
#[derive(Clone, Debug)]
pub(super) struct Signed {
    pub payload_type: String,
    pub payload: Vec<u8>,
    pub signature: Vec<u8>,
    /// The leaf certificate, DER.
    pub certificate: Vec<u8>,
    pub entry: LogEntry,
}

/// The bundle's transparency-log entry.
#[derive(Clone, Debug)]
pub(super) struct LogEntry {
    pub log_id: Vec<u8>,
    pub log_index: i64,
    pub integrated_time: i64,
    /// The canonicalized body, as the log gave it (base64).
    pub body_b64: String,
    /// The signed entry timestamp (inclusion promise), when the entry has one.
    pub promise: Option<Vec<u8>>,
}

/// Why a bundle did not verify: which part failed, and whether it is a bundle this verifier
/// cannot check at all (an entry without a signed timestamp, an unread entry kind) rather than
/// one that failed a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Failure {
    pub what: String,
    pub unverifiable: bool,
}

impl Failure {
    pub(super) fn new(what: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            unverifiable: false,
        }
    }
}

pub(super) fn fail<T>(what: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::new(what))
}

pub(super) fn unverifiable<T>(what: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        what: what.into(),
        unverifiable: true,
    })
}

/// Standard base64, as bundles and trusted roots write bytes.
pub(super) fn b64(text: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// The statement of npm's attestation bundle (a Sigstore bundle, v0.1 to v0.3).
pub(super) fn from_npm_bundle(bundle: &Value) -> Result<Signed, Failure> {
    let material = &bundle["verificationMaterial"];
    let certificate = material["certificate"]["rawBytes"]
        .as_str()
        .or(material["x509CertificateChain"]["certificates"][0]["rawBytes"].as_str())
        .and_then(b64);
    let envelope = &bundle["dsseEnvelope"];
    signed(
        envelope["payloadType"].as_str(),
        envelope["payload"].as_str(),
        envelope["signatures"][0]["sig"].as_str(),
        certificate,
        &material["tlogEntries"][0],
    )
}

/// The statement of one PEP 740 attestation (PyPI's Integrity API).
pub(super) fn from_pypi_attestation(attestation: &Value) -> Result<Signed, Failure> {
    let material = &attestation["verification_material"];
    let envelope = &attestation["envelope"];
    signed(
        Some("application/vnd.in-toto+json"),
        envelope["statement"].as_str(),
        envelope["signature"].as_str(),
        material["certificate"].as_str().and_then(b64),
        &material["transparency_entries"][0],
    )
}

fn number(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_str()?.parse().ok())
}

fn signed(
    payload_type: Option<&str>,
    payload: Option<&str>,
    signature: Option<&str>,
    certificate: Option<Vec<u8>>,
    entry: &Value,
) -> Result<Signed, Failure> {
    let missing = |what: &str| Failure::new(format!("the bundle has no {what}"));
    let body_b64 = entry["canonicalizedBody"]
        .as_str()
        .ok_or_else(|| missing("transparency-log entry"))?;
    Ok(Signed {
        payload_type: payload_type
            .ok_or_else(|| missing("payload type"))?
            .to_owned(),
        payload: payload.and_then(b64).ok_or_else(|| missing("payload"))?,
        signature: signature
            .and_then(b64)
            .ok_or_else(|| missing("signature"))?,
        certificate: certificate.ok_or_else(|| missing("certificate"))?,
        entry: LogEntry {
            log_id: entry["logId"]["keyId"]
                .as_str()
                .and_then(b64)
                .ok_or_else(|| missing("log ID"))?,
            log_index: number(&entry["logIndex"]).ok_or_else(|| missing("log index"))?,
            integrated_time: number(&entry["integratedTime"])
                .ok_or_else(|| missing("integrated time"))?,
            body_b64: body_b64.to_owned(),
            promise: entry["inclusionPromise"]["signedEntryTimestamp"]
                .as_str()
                .and_then(b64),
        },
    })
}
