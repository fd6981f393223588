//! Reading a servers file in the widespread `{"mcpServers": {name: config}}` layout (also `servers`).

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};

/// The servers named in a file, in file order, with their raw configs (validated later, one by one,
/// so that one bad entry never hides the others).
#[derive(Debug)]
pub struct ServersFile {
    pub servers: Vec<(String, Value)>,
}

pub fn load_servers_file(path: &Path) -> Result<ServersFile> {
    let text = std::fs::read_to_string(path).map_err(|e| {
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
