//! The saved test data under `tests/data/`: paths into it and the real-world-style schemas the
//! conversion tests read.

use std::path::PathBuf;

use serde_json::Value;

/// `tests/data/<relative>`.
pub(crate) fn data_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(relative)
}

/// Every saved schema file (`tests/data/schemas/*.json`, each a list of MCP tools) by file stem, sorted.
pub(crate) fn schema_files() -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    let dir = data_path("schemas");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let tools: Vec<Value> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()));
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        out.push((stem, tools));
    }
    out
}
