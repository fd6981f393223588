//! A `package` server's program, ready before its spawn: from the cache when its folder holds a
//! record that still checks (no network), else fetched once — metadata, archive checked against
//! the pin, install — within [`limits::PACKAGE_FETCH_TIMEOUT`]. A pin that does not match is
//! refused before anything of the package is unpacked or run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::cache;
use super::{fetch_npm, fetch_pypi};
use crate::config::{PackageRegistry, ServerSpec};
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// One fetch per folder at a time in this process: two servers of one package share the fetch.
fn folder_lock(folder: &Path) -> Arc<tokio::sync::Mutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Arc::clone(locks.entry(folder.to_path_buf()).or_default())
}

/// `spec` with the package's program as its command (the config's `args` after the program's
/// own), or `None` when `spec` is no `package` server. `packages`: the folder packages are
/// installed in, under the sidecar's cache directory.
pub(crate) async fn prepare(
    server: &str,
    spec: &ServerSpec,
    packages: Option<&Path>,
) -> Result<Option<ServerSpec>> {
    let Some(package) = &spec.package else {
        return Ok(None);
    };
    let Some(packages) = packages else {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "server `{server}`: a `package` server is installed into the cache directory, and \
                 this sidecar has none (give --cache-dir)"
            ),
        )
        .with("server", server)
        .with("field", "package"));
    };
    let folder = cache::folder(packages, package);
    let lock = folder_lock(&folder);
    let _held = lock.lock().await;
    let record = match cache::load(server, package, &folder).await? {
        Some(record) => record,
        None => {
            tracing::info!(server, package = %package.display(), folder = %folder.display(), "fetching the package into the cache");
            // A folder without a record is what an interrupted fetch left.
            let _ = tokio::fs::remove_dir_all(&folder).await;
            tokio::fs::create_dir_all(&folder)
                .await
                .map_err(|e| Error::internal(format!("cannot create {}: {e}", folder.display())))?;
            let fetch = async {
                match package.registry {
                    PackageRegistry::Npm => fetch_npm::fetch(server, package, &folder).await,
                    PackageRegistry::Pypi => fetch_pypi::fetch(server, package, &folder).await,
                }
            };
            let fetched = match tokio::time::timeout(limits::PACKAGE_FETCH_TIMEOUT, fetch).await {
                Ok(fetched) => fetched,
                Err(_) => Err(Error::new(
                    ErrorCode::ServerUnavailable,
                    format!(
                        "server `{server}`: fetching {} took longer than {} s",
                        package.display(),
                        limits::PACKAGE_FETCH_TIMEOUT.as_secs()
                    ),
                )
                .with("limit", limits::PACKAGE_FETCH_TIMEOUT.as_secs())),
            };
            let record = match fetched {
                Ok(record) => record,
                Err(e) => {
                    let _ = tokio::fs::remove_dir_all(&folder).await;
                    return Err(e.with("server", server));
                }
            };
            cache::finish(package, &folder, &record).await?;
            record
        }
    };
    let (command, mut args) = cache::program(&folder, &record);
    args.extend(spec.args.iter().cloned());
    Ok(Some(ServerSpec {
        command,
        args,
        ..spec.clone()
    }))
}
