//! An npm package's first fetch: the registry's document of the exact version
//! (`NPM_CONFIG_REGISTRY`, or registry.npmjs.org), its `dist.integrity` compared with the pin, the
//! tarball downloaded and its sha512 checked before anything of it is unpacked, its provenance
//! verified when the registry has one (and required when the config pins a publisher), then `npm install` of that verified file into the package's
//! folder (no install scripts). npm resolves the dependencies (honouring an `npm-shrinkwrap.json`
//! the package ships) and writes `package-lock.json`, whose hash the record keeps.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use super::cache::tool_name;
use super::download;
use super::integrity::mismatch;
use super::provenance;
use super::record::Record;
use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode, Result};
use crate::process;

const ARCHIVE: &str = "package.tgz";

/// The registry's base URL, without a trailing `/`.
pub(super) fn registry() -> String {
    let configured = ["NPM_CONFIG_REGISTRY", "npm_config_registry"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()));
    configured
        .unwrap_or_else(|| "https://registry.npmjs.org".to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// The registry's document of one version (`{dist: {integrity, tarball, attestations?}, bin}`).
pub(super) async fn version_document(
    client: &reqwest::Client,
    spec: &PackageSpec,
) -> Result<Value> {
    // A scoped name's `/` is escaped in the path, as npm does.
    let url = format!(
        "{}/{}/{}",
        registry(),
        spec.name.replace('/', "%2f"),
        spec.version
    );
    download::json(client, spec, &url).await
}

fn bad_document(spec: &PackageSpec, what: &str) -> Error {
    Error::new(
        ErrorCode::ProtocolError,
        format!(
            "package {}: the registry's document has no {what}",
            spec.display()
        ),
    )
    .with("package", spec.display())
}

/// Fetches, verifies and installs `spec` into `folder` (which exists and is empty).
pub(super) async fn fetch(server: &str, spec: &PackageSpec, folder: &Path) -> Result<Record> {
    let client = download::client()?;
    let document = version_document(&client, spec).await?;
    let dist = &document["dist"];
    let claimed = dist["integrity"].as_str();
    // The registry's own word first: a pin that the registry does not claim is refused before
    // anything is downloaded.
    if claimed != Some(spec.pin.as_str()) {
        return Err(mismatch(server, spec, "the registry's tarball", claimed));
    }
    let tarball = dist["tarball"]
        .as_str()
        .ok_or_else(|| bad_document(spec, "dist.tarball"))?;
    let archive = folder.join(ARCHIVE);
    let actual = download::archive(&client, spec, tarball, &archive).await?;
    if actual != spec.pin {
        let _ = tokio::fs::remove_file(&archive).await;
        return Err(mismatch(
            server,
            spec,
            "the downloaded tarball",
            Some(&actual),
        ));
    }
    let publisher = match dist["attestations"]["url"].as_str() {
        Some(url) => Some(provenance::npm(server, &client, spec, url).await?),
        None => None,
    };
    provenance::matches_pin(server, spec, publisher.as_ref())?;
    install(spec, folder, &archive).await?;
    let lock_sha256 = super::integrity::sha256_of(&folder.join("package-lock.json"))
        .await
        .map_err(|e| install_failed(spec, &format!("no package-lock.json: {e}")))?;
    let entry = entry(spec, folder).await?;
    Ok(Record {
        package: spec.display(),
        pin: spec.pin.clone(),
        archive: ARCHIVE.to_owned(),
        lock_file: "package-lock.json".to_owned(),
        lock_sha256,
        runner: Some("node".to_owned()),
        entry,
        publisher,
    })
}

fn install_failed(spec: &PackageSpec, why: &str) -> Error {
    Error::new(
        ErrorCode::ServerUnavailable,
        format!("package {}: npm install failed: {why}", spec.display()),
    )
    .with("package", spec.display())
}

/// `npm install` of the verified tarball into `folder`, install scripts off.
async fn install(spec: &PackageSpec, folder: &Path, archive: &Path) -> Result<()> {
    let args: [&OsStr; 9] = [
        OsStr::new("install"),
        OsStr::new("--prefix"),
        folder.as_os_str(),
        OsStr::new("--ignore-scripts"),
        OsStr::new("--no-audit"),
        OsStr::new("--no-fund"),
        OsStr::new("--omit=dev"),
        OsStr::new("--loglevel=error"),
        archive.as_os_str(),
    ];
    let program = tool_name(PackageRegistry::Npm);
    let run = process::package_tool(OsStr::new(program), &args, &[])
        .await
        .map_err(|e| install_failed(spec, &format!("cannot run `{program}`: {e}")))?;
    if run.success {
        Ok(())
    } else {
        Err(install_failed(spec, run.stderr.trim()))
    }
}

/// The program of the installed package, a path inside `folder`: `bin` as the config names it,
/// else the only one, else the one named after the package.
async fn entry(spec: &PackageSpec, folder: &Path) -> Result<String> {
    let root = Path::new("node_modules").join(&spec.name);
    let manifest_path = folder.join(&root).join("package.json");
    let text = tokio::fs::read(&manifest_path)
        .await
        .map_err(|e| install_failed(spec, &format!("{}: {e}", manifest_path.display())))?;
    let manifest: Value = serde_json::from_slice(&text)
        .map_err(|e| install_failed(spec, &format!("{}: {e}", manifest_path.display())))?;
    let unscoped = spec.name.rsplit('/').next().unwrap_or(&spec.name);
    let bins: Vec<(String, String)> = match &manifest["bin"] {
        Value::String(path) => vec![(unscoped.to_owned(), path.clone())],
        Value::Object(map) => map
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect(),
        _ => Vec::new(),
    };
    let chosen = match &spec.bin {
        Some(want) => bins.iter().find(|(name, _)| name == want),
        None if bins.len() == 1 => bins.first(),
        None => bins.iter().find(|(name, _)| name == unscoped),
    };
    let Some((_, path)) = chosen else {
        let names: Vec<&str> = bins.iter().map(|(n, _)| n.as_str()).collect();
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "config.package.bin: package {} has the programs {names:?}; name one with `bin`",
                spec.display()
            ),
        )
        .with("field", "package.bin"));
    };
    let relative = root.join(path.trim_start_matches("./"));
    let inside = relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        return Err(install_failed(
            spec,
            &format!("its bin `{path}` leaves the package"),
        ));
    }
    Ok(relative.to_string_lossy().into_owned())
}
