//! Config files watched for edits (`mcp` mode's, a host's `servers/load {watch: true}`): each file's folder is watched (an editor that saves
//! by writing a new file and renaming it over the old one replaces the inode a watch on the file
//! itself would hold), and an event naming one of the files — or anything below a config folder —
//! wakes the reload. Reads (ours included) are no edit and are ignored, or a reload would wake the
//! next one.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::Notify;

/// The watcher: dropping it stops the watching.
pub(crate) struct ConfigWatch {
    _watcher: notify::RecommendedWatcher,
}

/// Watches `paths`; `wake` is notified on an edit (notifications coalesce while no one waits).
/// `None`, with a warning, when the platform's watcher cannot be had (SIGHUP still reloads).
pub(crate) fn watch(paths: &[PathBuf], wake: Arc<Notify>) -> Option<ConfigWatch> {
    let mut files = BTreeSet::new();
    let mut folders = BTreeSet::new();
    let mut watched = BTreeSet::new();
    for path in paths {
        let Some(absolute) = absolute(path) else {
            continue;
        };
        if absolute.is_dir() {
            folders.insert(absolute.clone());
            watched.insert((absolute, RecursiveMode::Recursive));
        } else if let Some(parent) = absolute.parent() {
            watched.insert((parent.to_path_buf(), RecursiveMode::NonRecursive));
            files.insert(absolute);
        }
    }
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            return;
        };
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        let ours = event
            .paths
            .iter()
            .any(|p| files.contains(p) || folders.iter().any(|f| p.starts_with(f)));
        if ours {
            wake.notify_one();
        }
    };
    let mut watcher = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!("config files are not watched (SIGHUP still reloads them): {e}");
            return None;
        }
    };
    for (path, mode) in &watched {
        if let Err(e) = watcher.watch(path, *mode) {
            tracing::warn!(
                folder = %path.display(),
                "config edits there are not watched (SIGHUP still reloads them): {e}"
            );
        }
    }
    Some(ConfigWatch { _watcher: watcher })
}

/// `path` made absolute with its folder resolved (events name real paths); the file itself may
/// not exist yet.
fn absolute(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(parent).ok()?.join(path.file_name()?))
}
