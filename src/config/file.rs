//! Reading config files: every read through one bound ([`read_bounded`]), and a servers file in the
//! widespread `{"mcpServers": {name: config}}` layout (also `servers`).

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// A config file, plugin manifest or env file, whole, through [`limits::CONFIG_FILE_MAX_BYTES`]: a
/// config naming `/dev/zero` or a huge file gets an error naming the bound instead of the
/// sidecar's memory.
pub(super) fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let limit = limits::CONFIG_FILE_MAX_BYTES;
    read_at_most(path, limit).map_err(|e| {
        too_large(e, || {
            format!("larger than the {limit}-byte limit for config files")
        })
    })
}

/// [`read_bounded`], as UTF-8 text.
pub(super) fn read_text_bounded(path: &Path) -> std::io::Result<String> {
    utf8(read_bounded(path)?)
}

/// [`read_text_bounded`] for a load that has `left` bytes of its [`limits::CONFIG_LOAD_MAX_BYTES`]
/// to read: a file past what is left is refused (`QuotaExceeded`) with an error naming that bound.
pub(super) fn read_text_within_load(path: &Path, left: u64) -> std::io::Result<String> {
    let limit = limits::CONFIG_FILE_MAX_BYTES;
    if left >= limit {
        return read_text_bounded(path);
    }
    let bytes = read_at_most(path, left).map_err(|e| {
        if e.kind() != std::io::ErrorKind::FileTooLarge {
            return e;
        }
        std::io::Error::new(
            std::io::ErrorKind::QuotaExceeded,
            format!(
                "not read: the files of one load may hold {} bytes together and {left} are left; load fewer files at once",
                limits::CONFIG_LOAD_MAX_BYTES
            ),
        )
    })?;
    utf8(bytes)
}

/// At most `limit` bytes of `path`; one more is an `InvalidData` error with no message yet.
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
    }
    Ok(bytes)
}

/// `e` with `message` when it is the bound's error, as it is otherwise.
fn too_large(e: std::io::Error, message: impl FnOnce() -> String) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        std::io::Error::new(std::io::ErrorKind::InvalidData, message())
    } else {
        e
    }
}

fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// The servers named in a file, in file order, with their raw configs (validated later, one by one,
/// so that one bad entry never hides the others).
#[derive(Debug)]
pub struct ServersFile {
    pub servers: Vec<(String, Value)>,
}

pub fn load_servers_file(path: &Path) -> Result<ServersFile> {
    let text = read_text_bounded(path).map_err(|e| {
        Error::new(
            ErrorCode::ConfigInvalid,
            format!("cannot read {}: {e}", path.display()),
        )
        .with("file", path.display().to_string())
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "{}: line {}, column {}: {e}",
                path.display(),
                e.line(),
                e.column()
            ),
        )
        .with("file", path.display().to_string())
    })?;
    let table = value
        .get("mcpServers")
        .or_else(|| value.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("{}: expected an object `mcpServers`", path.display()),
            )
            .with("file", path.display().to_string())
            .with("field", "mcpServers")
        })?;
    // serde_json's map is sorted by key; that is the order servers are reported in.
    Ok(ServersFile {
        servers: table.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
    })
}

// Unix: /dev/zero is the endless file.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// An endless file is refused at the bound, not read into memory.
    #[test]
    fn an_endless_file_is_refused_at_the_bound() {
        let e = read_bounded(Path::new("/dev/zero")).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("limit for config files"), "{e}");
    }
}
