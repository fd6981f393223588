//! The one way the on-disk stores (the schema cache and the era verdicts beside it) keep a JSON
//! document: written whole to a hidden private temporary file (mode 0600, directory 0700) and
//! renamed into place, so a reader never sees half a file; read back through a bound, and only
//! when it carries the expected `format` and `key` — anything unexpected is a miss.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

/// The document at `path` if it is at most `max_bytes`, parses, and names `format` and `key`.
pub(super) async fn read(path: &Path, max_bytes: u64, format: u64, key: &str) -> Option<Value> {
    let file = tokio::fs::File::open(path).await.ok()?;
    let mut text = Vec::new();
    file.take(max_bytes + 1).read_to_end(&mut text).await.ok()?;
    if text.len() as u64 > max_bytes {
        return None;
    }
    let doc: Value = serde_json::from_slice(&text).ok()?;
    if doc.get("format") != Some(&json!(format)) || doc.get("key") != Some(&json!(key)) {
        return None;
    }
    Some(doc)
}

/// Writes `doc` to `path` in `dir` atomically and privately, on a blocking-pool thread.
pub(super) async fn write(dir: PathBuf, path: PathBuf, doc: Value) -> std::io::Result<()> {
    tokio::task::spawn_blocking(move || write_blocking(&dir, &path, &doc))
        .await
        .map_err(std::io::Error::other)?
}

fn write_blocking(dir: &Path, path: &Path, doc: &Value) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    // Hidden and named by the process: never mistaken for an entry, never shared by two writers.
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&tmp).and_then(|mut f| {
        f.write_all(doc.to_string().as_bytes())?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
