//! `mcp-sidecar pin`: the `package` block that pins a package, with the hash the registry gives
//! now (trust on first use, made explicit: the person pastes what they were shown).

use serde_json::{json, Value};

use super::download;
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
            Ok(json!({"npm": format!("{}@{version}", spec.name), "integrity": integrity}))
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
            Ok(json!({"pypi": format!("{}=={}", spec.name, spec.version), "sha256": chosen.2}))
        }
    }
}
