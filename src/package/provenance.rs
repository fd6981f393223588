//! A package's provenance, read at its first fetch and at `mcp-sidecar pin`: npm's attestation
//! bundle (`dist.attestations`) or PyPI's PEP 740 provenance (the Integrity API). The Sigstore
//! bundle is verified offline against the embedded public-good root (`super::sigstore`), its
//! in-toto statement must name this very archive (the pinned sha512 / sha256), and the Fulcio
//! certificate's claims are the publisher. A bundle that fails a check is PACKAGE_INTEGRITY naming
//! the part; one this build cannot check (no signed entry timestamp) is shown as not verified. A
//! package with no provenance has no publisher, which is an error only when the config pins one.

use base64::Engine;
use serde_json::Value;

use super::download;
use super::integrity::mismatch;
use super::record::Publisher;
use super::sigstore;
use super::sigstore_bundle::{self, Signed};
use super::sigstore_root::TrustedRoot;
use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode, Result};

/// What `verified` says when the bundle and the subject verified.
pub(super) const SIGSTORE: &str =
    "sigstore: the envelope's signature, the Fulcio certificate chain at \
     the log's time, Rekor's signed entry timestamp, and the subject digest (this archive)";

/// The npm attestation bundle at `url`, verified against the pin.
pub(super) async fn npm(
    server: &str,
    client: &reqwest::Client,
    spec: &PackageSpec,
    url: &str,
) -> Result<Publisher> {
    let document = download::json(client, spec, url).await?;
    npm_publisher(server, spec, &document, &trusted_root()?)
}

/// PyPI's provenance of the release file `filename` (the Integrity API next to the index),
/// verified against the pin; `None` when PyPI has none for it or the index cannot say.
pub(super) async fn pypi(
    server: &str,
    client: &reqwest::Client,
    spec: &PackageSpec,
    index: &str,
    filename: &str,
) -> Result<Option<Publisher>> {
    let base = index
        .trim_end_matches('/')
        .trim_end_matches("/simple")
        .to_owned();
    let url = format!(
        "{base}/integrity/{}/{}/{filename}/provenance",
        spec.name, spec.version
    );
    // An index without the Integrity API (a company mirror) answers anything: no provenance,
    // which `package.publisher` then refuses and which is otherwise not required.
    let document = match download::json_if_found(client, spec, &url).await {
        Ok(Some(document)) => document,
        Ok(None) => return Ok(None),
        Err(e) => {
            tracing::info!(server, package = %spec.display(), error = %e.message, "no PyPI provenance read");
            return Ok(None);
        }
    };
    pypi_publisher(server, spec, &document, &trusted_root()?).map(Some)
}

fn trusted_root() -> Result<TrustedRoot> {
    TrustedRoot::public_good().map_err(|f| {
        Error::new(
            ErrorCode::Internal,
            format!("the embedded Sigstore root: {}", f.what),
        )
    })
}

fn invalid_provenance(server: &str, spec: &PackageSpec, what: &str) -> Error {
    Error::new(
        ErrorCode::PackageIntegrity,
        format!(
            "server `{server}`: the provenance of {} does not verify: {what}; nothing of it was \
             installed or run",
            spec.display()
        ),
    )
    .with("server", server)
    .with("package", spec.display())
    .with("expected", spec.pin.as_str())
    .with("failed", what)
}

/// The publisher npm's attestations document names for `spec`'s tarball, verified under `root`.
pub(super) fn npm_publisher(
    server: &str,
    spec: &PackageSpec,
    document: &Value,
    root: &TrustedRoot,
) -> Result<Publisher> {
    // The SLSA provenance decides (npm's publish attestation is the registry's own).
    let bundle = document["attestations"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| {
            a["predicateType"]
                .as_str()
                .is_some_and(|t| t.starts_with("https://slsa.dev/provenance/"))
        })
        .map(|a| &a["bundle"]);
    let Some(bundle) = bundle else {
        return Ok(none("the bundle has no SLSA provenance statement"));
    };
    // A statement about another tarball is refused as such, whatever its signature.
    statement_is_about_the_pin(server, spec, &bundle["dsseEnvelope"]["payload"])?;
    let signed = sigstore_bundle::from_npm_bundle(bundle)
        .map_err(|f| invalid_provenance(server, spec, &f.what))?;
    checked(server, spec, &signed, root)
}

/// The publisher PyPI's provenance names for `spec`'s file, verified under `root`: every
/// attestation must verify and name the file; the first one's certificate is the publisher.
pub(super) fn pypi_publisher(
    server: &str,
    spec: &PackageSpec,
    document: &Value,
    root: &TrustedRoot,
) -> Result<Publisher> {
    let attestations: Vec<&Value> = document["attestation_bundles"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|b| b["attestations"].as_array().into_iter().flatten())
        .collect();
    let mut publisher = None;
    for attestation in attestations {
        statement_is_about_the_pin(server, spec, &attestation["envelope"]["statement"])?;
        let signed = sigstore_bundle::from_pypi_attestation(attestation)
            .map_err(|f| invalid_provenance(server, spec, &f.what))?;
        let found = checked(server, spec, &signed, root)?;
        publisher.get_or_insert(found);
    }
    Ok(publisher.unwrap_or_else(|| none("the provenance has no attestation")))
}

fn none(why: &str) -> Publisher {
    Publisher {
        issuer: None,
        repository: None,
        workflow: None,
        commit: None,
        verified: format!("none ({why})"),
    }
}

/// The bundle verified and its statement about this archive: the certificate's publisher. A
/// bundle this build cannot check keeps the statement's claim, marked not verified.
fn checked(
    server: &str,
    spec: &PackageSpec,
    signed: &Signed,
    root: &TrustedRoot,
) -> Result<Publisher> {
    let statement: Value = serde_json::from_slice(&signed.payload)
        .map_err(|_| invalid_provenance(server, spec, "the statement is not JSON"))?;
    subject_is_the_pin(server, spec, &statement)?;
    match sigstore::verify(signed, root) {
        Ok(id) => Ok(Publisher {
            issuer: id.issuer,
            repository: id.repository,
            workflow: id.workflow,
            commit: id.commit,
            verified: SIGSTORE.to_owned(),
        }),
        Err(f) if f.unverifiable => Ok(claimed(&statement, &f.what)),
        Err(f) => Err(invalid_provenance(server, spec, &f.what)),
    }
}

/// A statement (base64, as the bundle carries it) that can be read names the pinned archive.
fn statement_is_about_the_pin(server: &str, spec: &PackageSpec, payload: &Value) -> Result<()> {
    let statement = payload
        .as_str()
        .and_then(|p| base64::engine::general_purpose::STANDARD.decode(p).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    match statement {
        Some(statement) => subject_is_the_pin(server, spec, &statement),
        None => Ok(()),
    }
}

/// The statement's subject names the pinned archive (npm: sha512 of the tarball; PyPI: sha256).
fn subject_is_the_pin(server: &str, spec: &PackageSpec, statement: &Value) -> Result<()> {
    let (algorithm, pinned_hex) = match spec.registry {
        PackageRegistry::Npm => (
            "sha512",
            spec.pin
                .strip_prefix("sha512-")
                .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
                .map(hex::encode)
                .unwrap_or_default(),
        ),
        PackageRegistry::Pypi => ("sha256", spec.pin.clone()),
    };
    let digests: Vec<&str> = statement["subject"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["digest"][algorithm].as_str())
        .collect();
    if digests.contains(&pinned_hex.as_str()) {
        return Ok(());
    }
    let found = digests.first().map(|d| format!("{algorithm} {d}"));
    Err(mismatch(
        server,
        spec,
        "the subject of the registry's provenance",
        found.as_deref(),
    ))
}

/// What an unverifiable statement claims (SLSA v1's workflow), marked as such.
fn claimed(statement: &Value, why: &str) -> Publisher {
    let workflow = &statement["predicate"]["buildDefinition"]["externalParameters"]["workflow"];
    let text = |v: &Value| v.as_str().map(str::to_owned);
    Publisher {
        issuer: None,
        repository: text(&workflow["repository"]),
        workflow: match (text(&workflow["path"]), text(&workflow["ref"])) {
            (Some(path), Some(r)) => Some(format!("{path}@{r}")),
            (path, _) => path,
        },
        commit: None,
        verified: format!("not verified, claimed only: {why}"),
    }
}

/// The publisher the config pins (`package.publisher`) against what provenance said: each field
/// given must equal the verified one; a pinned publisher with no verified provenance is refused.
pub(super) fn matches_pin(
    server: &str,
    spec: &PackageSpec,
    found: Option<&Publisher>,
) -> Result<()> {
    let Some(pinned) = &spec.publisher else {
        return Ok(());
    };
    let verified = found.filter(|p| p.verified == SIGSTORE);
    let Some(found) = verified else {
        let why = found.map_or("the registry lists no provenance", |p| p.verified.as_str());
        return Err(Error::new(
            ErrorCode::PackageIntegrity,
            format!(
                "server `{server}`: {} pins `package.publisher`, but has no verified provenance \
                 ({why}); nothing of it was installed or run",
                spec.display()
            ),
        )
        .with("server", server)
        .with("package", spec.display())
        .with("expected", pinned.to_json())
        .with("field", "package.publisher"));
    };
    for (field, want, have) in [
        ("repository", &pinned.repository, &found.repository),
        ("workflow", &pinned.workflow, &found.workflow),
        ("issuer", &pinned.issuer, &found.issuer),
        ("commit", &pinned.commit, &found.commit),
    ] {
        let Some(want) = want else { continue };
        if have.as_deref() != Some(want.as_str()) {
            let actual = have.clone().unwrap_or_else(|| "none".into());
            return Err(Error::new(
                ErrorCode::PackageIntegrity,
                format!(
                    "server `{server}`: the verified provenance of {} names another publisher: \
                     `package.publisher.{field}` expected {want}, found {actual}; nothing of it \
                     was installed or run",
                    spec.display()
                ),
            )
            .with("server", server)
            .with("package", spec.display())
            .with("field", format!("package.publisher.{field}"))
            .with("expected", want.as_str())
            .with("actual", actual));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PinnedPublisher;

    const ROOT: &str = include_str!("../../tests/data/provenance/trusted_root.json");
    const NPM: &str = include_str!("../../tests/data/provenance/npm_attestations.json");
    const PYPI: &str = include_str!("../../tests/data/provenance/pypi_provenance.json");
    const SUBJECTS: &str = include_str!("../../tests/data/provenance/subjects.json");
    const REPO: &str = "https://github.com/example-org/example-server";

    fn subjects() -> Value {
        serde_json::from_str(SUBJECTS).unwrap()
    }

    fn spec(registry: PackageRegistry, pin: &str) -> PackageSpec {
        PackageSpec {
            registry,
            name: "example-server".into(),
            version: "1.0.0".into(),
            pin: pin.into(),
            bin: None,
            publisher: None,
        }
    }

    fn npm_spec() -> PackageSpec {
        spec(
            PackageRegistry::Npm,
            subjects()["npmIntegrity"].as_str().unwrap(),
        )
    }

    fn pypi_spec() -> PackageSpec {
        spec(
            PackageRegistry::Pypi,
            subjects()["pypiSha256"].as_str().unwrap(),
        )
    }

    fn root() -> TrustedRoot {
        TrustedRoot::from_json(ROOT).unwrap()
    }

    fn doc(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn verified_publishers_of_this_archive() {
        let npm = npm_publisher("s", &npm_spec(), &doc(NPM), &root()).unwrap();
        let pypi = pypi_publisher("s", &pypi_spec(), &doc(PYPI), &root()).unwrap();
        for p in [npm, pypi] {
            assert_eq!(p.verified, SIGSTORE);
            assert_eq!(p.repository.as_deref(), Some(REPO));
            assert_eq!(
                p.commit.as_deref(),
                Some("0123456789abcdef0123456789abcdef01234567")
            );
            assert_eq!(
                p.issuer.as_deref(),
                Some("https://token.actions.githubusercontent.com")
            );
        }
    }

    /// PyPI's provenance of a real release file (tests/data/provenance), against the embedded
    /// public-good root: the publisher as its certificate says; about another file, refused.
    #[test]
    fn a_real_pypi_provenance_of_the_pinned_file() {
        let document = doc(include_str!(
            "../../tests/data/provenance/pypi_attestations-0.0.19.tar.gz.provenance.json"
        ));
        let mut pinned = spec(
            PackageRegistry::Pypi,
            "9bb1add04b1b4e182be6b0b80931593f7a291eb49d69b4fd728a5d4cbcdc4bd3",
        );
        pinned.name = "pypi-attestations".into();
        pinned.version = "0.0.19".into();
        let root = TrustedRoot::public_good().unwrap();
        let p = pypi_publisher("s", &pinned, &document, &root).unwrap();
        assert_eq!(p.verified, SIGSTORE);
        assert_eq!(
            p.repository.as_deref(),
            Some("https://github.com/trailofbits/pypi-attestations")
        );
        pinned.pin = "1".repeat(64);
        let e = pypi_publisher("s", &pinned, &document, &root).unwrap_err();
        assert_eq!(e.code, ErrorCode::PackageIntegrity);
    }

    #[test]
    fn a_bundle_signed_for_another_archive_is_refused() {
        let other_npm = spec(
            PackageRegistry::Npm,
            &format!("sha512-{}", "A".repeat(86) + "=="),
        );
        let e = npm_publisher("s", &other_npm, &doc(NPM), &root()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PackageIntegrity);
        assert!(
            e.message.contains("subject of the registry's provenance"),
            "{}",
            e.message
        );
        let other_pypi = spec(PackageRegistry::Pypi, &"0".repeat(64));
        let e = pypi_publisher("s", &other_pypi, &doc(PYPI), &root()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PackageIntegrity);
    }

    /// One byte of the signature or the certificate changed in the document as served.
    #[test]
    fn a_tampered_bundle_is_package_integrity_naming_the_part() {
        let b64 = base64::engine::general_purpose::STANDARD;
        let flip = |text: &str| {
            let mut bytes = b64.decode(text).unwrap();
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
            b64.encode(bytes)
        };
        let mut d = doc(NPM);
        let sig = &mut d["attestations"][0]["bundle"]["dsseEnvelope"]["signatures"][0]["sig"];
        *sig = flip(sig.as_str().unwrap()).into();
        let e = npm_publisher("s", &npm_spec(), &d, &root()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PackageIntegrity);
        assert!(e.message.contains("does not verify"), "{}", e.message);
        assert!(e.message.contains("signature"), "{}", e.message);
        let mut d = doc(PYPI);
        let cert = &mut d["attestation_bundles"][0]["attestations"][0]["verification_material"]
            ["certificate"];
        *cert = flip(cert.as_str().unwrap()).into();
        let e = pypi_publisher("s", &pypi_spec(), &d, &root()).unwrap_err();
        assert!(e.message.contains("certificate"), "{}", e.message);
        // The statement itself: its subject still names the archive, its bytes are not signed.
        let mut d = doc(NPM);
        let payload = &mut d["attestations"][0]["bundle"]["dsseEnvelope"]["payload"];
        let mut statement: Value =
            serde_json::from_slice(&b64.decode(payload.as_str().unwrap()).unwrap()).unwrap();
        statement["predicate"]["buildDefinition"]["externalParameters"]["workflow"]["repository"] =
            "https://github.com/someone/else".into();
        *payload = b64.encode(statement.to_string()).into();
        let e = npm_publisher("s", &npm_spec(), &d, &root()).unwrap_err();
        assert!(e.message.contains("payload"), "{}", e.message);
    }

    #[test]
    fn a_pinned_publisher_must_be_the_verified_one() {
        let found = npm_publisher("s", &npm_spec(), &doc(NPM), &root()).unwrap();
        let mut pinned = npm_spec();
        pinned.publisher = Some(PinnedPublisher {
            repository: Some(REPO.into()),
            ..PinnedPublisher::default()
        });
        matches_pin("s", &pinned, Some(&found)).unwrap();
        pinned.publisher = Some(PinnedPublisher {
            repository: Some("https://github.com/someone/else".into()),
            ..PinnedPublisher::default()
        });
        let e = matches_pin("s", &pinned, Some(&found)).unwrap_err();
        assert_eq!(e.code, ErrorCode::PackageIntegrity);
        assert!(
            e.message.contains("package.publisher.repository"),
            "{}",
            e.message
        );
        let e = matches_pin("s", &pinned, None).unwrap_err();
        assert!(
            e.message.contains("no verified provenance"),
            "{}",
            e.message
        );
        // Not pinned: any provenance, or none, is fine.
        matches_pin("s", &npm_spec(), None).unwrap();
    }

    #[test]
    fn an_entry_without_a_signed_timestamp_is_shown_as_claimed() {
        let mut d = doc(NPM);
        d["attestations"][0]["bundle"]["verificationMaterial"]["tlogEntries"][0]
            .as_object_mut()
            .unwrap()
            .remove("inclusionPromise");
        let p = npm_publisher("s", &npm_spec(), &d, &root()).unwrap();
        assert!(p.verified.starts_with("not verified"), "{}", p.verified);
        assert_eq!(p.repository.as_deref(), Some(REPO));
        assert_eq!(
            p.workflow.as_deref(),
            Some(".github/workflows/release.yml@refs/tags/v1.0.0")
        );
    }
}
