//! `mcp-sidecar pin`: the `package` block that pins a package, with the hash the registry gives
//! now (trust on first use, made explicit: the person pastes what they were shown), and the
//! publisher its provenance names when that provenance verifies (then required at every fetch).

use serde_json::{json, Value};

use super::download;
use super::provenance;
use super::record::Publisher;
use super::{fetch_npm, fetch_pypi};
use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode, Result};

/// A package to pin: its registry, name, and version (`None`: the latest).
pub(crate) struct PinRequest {
    pub registry: PackageRegistry,
    pub name: String,
    pub version: Option<String>,
}

/// The `package` block pinning `request` at the hash the registry serves.
pub(crate) async fn pin_block(request: &PinRequest) -> Result<Value> {
    let client = download::client()?;
    let spec = PackageSpec {
        registry: request.registry,
        name: request.name.clone(),
        version: request.version.clone().unwrap_or_else(|| "latest".into()),
        pin: String::new(),
        bin: None,
        publisher: None,
    };
    let shown = spec.display();
    let missing = |what: &str| {
        Error::new(
            ErrorCode::ProtocolError,
            format!("package {shown}: the registry gives no {what}"),
        )
    };
    match request.registry {
        PackageRegistry::Npm => {
            let document = fetch_npm::version_document(&client, &spec).await?;
            let version = document["version"]
                .as_str()
                .ok_or_else(|| missing("version"))?;
            let integrity = document["dist"]["integrity"]
                .as_str()
                .ok_or_else(|| missing("dist.integrity"))?;
            let mut block =
                json!({"npm": format!("{}@{version}", spec.name), "integrity": integrity});
            if let Some(url) = document["dist"]["attestations"]["url"].as_str() {
                let pinned = PackageSpec {
                    version: version.to_owned(),
                    pin: integrity.to_owned(),
                    ..spec.clone()
                };
                let found = provenance::npm("pin", &client, &pinned, url).await?;
                add_publisher(&mut block, &found);
            }
            Ok(block)
        }
        PackageRegistry::Pypi => {
            let mut spec = spec;
            if request.version.is_none() {
                let (_, latest) = fetch_pypi::project_files(&client, &spec).await?;
                spec.version = latest.ok_or_else(|| missing("release"))?;
            }
            let files = fetch_pypi::release_files(&client, &spec).await?;
            // A wheel installs without building; an sdist when there is no wheel.
            let chosen = files
                .iter()
                .find(|(name, _, _)| name.ends_with("-none-any.whl"))
                .or_else(|| files.iter().find(|(name, _, _)| name.ends_with(".whl")))
                .or_else(|| files.first())
                .ok_or_else(|| missing("file"))?;
            let mut block =
                json!({"pypi": format!("{}=={}", spec.name, spec.version), "sha256": chosen.2});
            let pinned = PackageSpec {
                pin: chosen.2.clone(),
                ..spec.clone()
            };
            let index = fetch_pypi::index();
            if let Some(found) =
                provenance::pypi("pin", &client, &pinned, &index, &chosen.0).await?
            {
                add_publisher(&mut block, &found);
            }
            Ok(block)
        }
    }
}

/// The verified publisher, as `package.publisher` spells it; nothing when provenance did not
/// verify (a claim is not pinned).
fn add_publisher(block: &mut Value, found: &Publisher) {
    if found.verified != provenance::SIGSTORE {
        return;
    }
    let mut publisher = serde_json::Map::new();
    for (key, value) in [
        ("repository", &found.repository),
        ("workflow", &found.workflow),
        ("issuer", &found.issuer),
        ("commit", &found.commit),
    ] {
        if let Some(v) = value {
            publisher.insert(key.to_owned(), Value::from(v.as_str()));
        }
    }
    if publisher.contains_key("repository") {
        block["publisher"] = Value::Object(publisher);
    }
}
