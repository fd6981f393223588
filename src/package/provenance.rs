//! npm provenance, as far as it is checked: the registry's attestation bundle for the version is
//! fetched, its SLSA provenance statement (the DSSE envelope's in-toto payload) must name this very
//! tarball (its subject's sha512 equals the pinned integrity, else PACKAGE_INTEGRITY), and the
//! source repository and workflow it claims are shown as the publisher. The Sigstore signature over
//! the envelope and its certificate chain to the Fulcio/Rekor trust root are NOT verified: that
//! needs the Sigstore trust root (TUF) and a transparency-log check, which this build does not
//! carry (docs/packages.md). The publisher is therefore "claimed", and says so.

use base64::Engine;
use serde_json::Value;

use super::download;
use super::integrity::mismatch;
use super::record::Publisher;
use crate::config::PackageSpec;
use crate::error::Result;

/// What `verified` says when the subject digest matched.
pub(super) const SUBJECT_DIGEST: &str = "subject-digest (signature not verified)";

/// The attestation bundle at `url`, checked against the pin.
pub(super) async fn npm(
    server: &str,
    client: &reqwest::Client,
    spec: &PackageSpec,
    url: &str,
) -> Result<Publisher> {
    let bundle = download::json(client, spec, url).await?;
    claimed_publisher(server, spec, &bundle)
}

/// The publisher an npm attestations document claims for `spec`'s tarball.
pub(super) fn claimed_publisher(
    server: &str,
    spec: &PackageSpec,
    document: &Value,
) -> Result<Publisher> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let pinned_hex = spec
        .pin
        .strip_prefix("sha512-")
        .and_then(|b| b64.decode(b).ok())
        .map(hex::encode)
        .unwrap_or_default();
    let mut statements = document["attestations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| {
            a["predicateType"]
                .as_str()
                .is_some_and(|t| t.starts_with("https://slsa.dev/provenance/"))
        })
        .filter_map(|a| a["bundle"]["dsseEnvelope"]["payload"].as_str())
        .filter_map(|payload| b64.decode(payload).ok())
        .filter_map(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    // The first SLSA statement decides (npm's bundle has one).
    if let Some(statement) = statements.next() {
        let digests: Vec<&str> = statement["subject"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["digest"]["sha512"].as_str())
            .collect();
        if !digests.contains(&pinned_hex.as_str()) {
            let found = digests.first().map(|d| format!("sha512 {d}"));
            return Err(mismatch(
                server,
                spec,
                "the subject of the registry's provenance",
                found.as_deref(),
            ));
        }
        let workflow = &statement["predicate"]["buildDefinition"]["externalParameters"]["workflow"];
        let text = |v: &Value| v.as_str().map(str::to_owned);
        return Ok(Publisher {
            repository: text(&workflow["repository"]),
            workflow: match (text(&workflow["path"]), text(&workflow["ref"])) {
                (Some(path), Some(r)) => Some(format!("{path}@{r}")),
                (path, _) => path,
            },
            verified: SUBJECT_DIGEST.to_owned(),
        });
    }
    Ok(Publisher {
        repository: None,
        workflow: None,
        verified: "none (the bundle has no SLSA provenance statement)".to_owned(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
    use crate::config::PackageRegistry;
    use serde_json::json;

    fn spec(pin: &str) -> PackageSpec {
        PackageSpec {
            registry: PackageRegistry::Npm,
            name: "@scope/x".into(),
            version: "1.0.0".into(),
            pin: pin.into(),
            bin: None,
        }
    }

    /// An attestations document as the npm registry serves it, for a subject digest.
    pub(super) fn document(sha512_hex: &str) -> Value {
        let statement = json!({
            "_type": "https://in-toto.io/Statement/v1",
            "subject": [{"name": "pkg:npm/%40scope/x@1.0.0", "digest": {"sha512": sha512_hex}}],
            "predicateType": "https://slsa.dev/provenance/v1",
            "predicate": {"buildDefinition": {"externalParameters": {"workflow": {
                "repository": "https://github.com/owner/repo",
                "path": ".github/workflows/publish.yml",
                "ref": "refs/tags/v1.0.0"
            }}}}
        });
        let payload = base64::engine::general_purpose::STANDARD.encode(statement.to_string());
        json!({"attestations": [
            {"predicateType": "https://github.com/npm/attestation/tree/main/specs/publish/v0.1", "bundle": {}},
            {"predicateType": "https://slsa.dev/provenance/v1", "bundle": {"dsseEnvelope": {"payload": payload, "payloadType": "application/vnd.in-toto+json"}}}
        ]})
    }

    const SRI: &str = "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";
    const HEX: &str = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";

    #[test]
    fn the_claimed_publisher_of_this_tarball() {
        let p = claimed_publisher("s", &spec(SRI), &document(HEX)).unwrap();
        assert_eq!(
            p.repository.as_deref(),
            Some("https://github.com/owner/repo")
        );
        assert_eq!(
            p.workflow.as_deref(),
            Some(".github/workflows/publish.yml@refs/tags/v1.0.0")
        );
        assert_eq!(p.verified, SUBJECT_DIGEST);
    }

    #[test]
    fn provenance_of_another_tarball_is_refused() {
        let other = "00".repeat(64);
        let e = claimed_publisher("s", &spec(SRI), &document(&other)).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::PackageIntegrity);
        assert!(e.message.contains("provenance"), "{}", e.message);
    }
}
