//! Where a package lives in the cache, `<cache>/packages/<registry>/<name>@<version>-<pin8>`
//! (one folder per name, version and pin: a changed pin never finds the old copy), and the check
//! made at every start from it: the archive still has the pinned hash and the lock file the hash
//! recorded at the fetch. A folder without its record is an unfinished fetch and is started over.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::integrity::{hash_file, mismatch, sha256_of};
use super::record::{Record, RECORD_FILE};
use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode, Result};

/// The folder of `spec` under the packages root.
pub(super) fn folder(root: &Path, spec: &PackageSpec) -> PathBuf {
    let pin8 = &hex::encode(Sha256::digest(spec.pin.as_bytes()))[..16];
    // `@scope/name` becomes one path component.
    let name = spec.name.replace('/', "+");
    root.join(spec.registry.as_str())
        .join(format!("{name}@{}-{pin8}", spec.version))
}

fn io_error(spec: &PackageSpec, path: &Path, e: &std::io::Error) -> Error {
    Error::internal(format!(
        "package {}: cannot read {}: {e}",
        spec.display(),
        path.display()
    ))
}

/// The record of a finished fetch, checked against the pin and the recorded lock hash; `None`
/// when the package was never (completely) fetched.
pub(super) async fn load(
    server: &str,
    spec: &PackageSpec,
    folder: &Path,
) -> Result<Option<Record>> {
    let path = folder.join(RECORD_FILE);
    let text = match tokio::fs::read(&path).await {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(spec, &path, &e)),
    };
    let record: Record = serde_json::from_slice(&text).map_err(|e| {
        Error::internal(format!(
            "package {}: {} is not a record ({e}); delete the folder to fetch again",
            spec.display(),
            path.display()
        ))
    })?;
    if record.pin != spec.pin || !safe_inside(&record.archive) || !safe_inside(&record.entry) {
        return Err(mismatch(
            server,
            spec,
            "the cache's record",
            Some(&record.pin),
        ));
    }
    let archive = folder.join(&record.archive);
    let actual = hash_file(spec.registry, &archive)
        .await
        .map_err(|e| io_error(spec, &archive, &e))?;
    if actual != spec.pin {
        return Err(mismatch(server, spec, "the cached archive", Some(&actual)));
    }
    let lock = folder.join(&record.lock_file);
    let lock_sha = sha256_of(&lock)
        .await
        .map_err(|e| io_error(spec, &lock, &e))?;
    if lock_sha != record.lock_sha256 {
        return Err(Error::new(
            ErrorCode::PackageIntegrity,
            format!(
                "server `{server}`: the dependency tree of {} in the cache changed since it was \
                 fetched ({} has sha256 {lock_sha}, {} was recorded); delete {} to fetch again",
                spec.display(),
                lock.display(),
                record.lock_sha256,
                folder.display()
            ),
        )
        .with("server", server)
        .with("package", spec.display())
        .with("expected", record.lock_sha256.clone())
        .with("actual", lock_sha));
    }
    Ok(Some(record))
}

/// Writes the record last, through a temporary file renamed into place.
pub(super) async fn finish(spec: &PackageSpec, folder: &Path, record: &Record) -> Result<()> {
    let tmp = folder.join(format!("{RECORD_FILE}.tmp"));
    let path = folder.join(RECORD_FILE);
    let text = serde_json::to_vec_pretty(record).map_err(|e| Error::internal(e.to_string()))?;
    tokio::fs::write(&tmp, text)
        .await
        .map_err(|e| io_error(spec, &tmp, &e))?;
    tokio::fs::rename(&tmp, &path)
        .await
        .map_err(|e| io_error(spec, &path, &e))
}

/// A relative path with no `..`: a record cannot point out of its folder.
fn safe_inside(relative: &str) -> bool {
    let path = Path::new(relative);
    !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// The program line of a cached package: the runner (found on PATH) and the entry's full path,
/// or the entry alone.
pub(super) fn program(folder: &Path, record: &Record) -> (String, Vec<String>) {
    let entry = folder.join(&record.entry).to_string_lossy().into_owned();
    match &record.runner {
        Some(runner) => (runner.clone(), vec![entry]),
        None => (entry, Vec::new()),
    }
}

/// The registry's program names on this platform (`npm.cmd` on Windows).
pub(super) fn tool_name(registry: PackageRegistry) -> &'static str {
    match (registry, cfg!(windows)) {
        (PackageRegistry::Npm, false) => "npm",
        (PackageRegistry::Npm, true) => "npm.cmd",
        (PackageRegistry::Pypi, false) => "python3",
        (PackageRegistry::Pypi, true) => "python",
    }
}
