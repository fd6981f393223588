//! The clients' generated protocol files (clients/codegen/generate.py output from proto/schema):
//! - they are what the generator makes from the schema now (`generate.py --check`), so a schema
//!   change without a regeneration fails here;
//! - the error codes each of them carries are exactly the sidecar's `ErrorCode` set, numbers
//!   included. (`transcripts.rs` pins `ErrorCode` to error.json and PROTOCOL.md; this pins the
//!   clients to `ErrorCode`, so the chain closes without reading the schema twice.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_sidecar::ErrorCode;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
#[allow(clippy::disallowed_methods)] // runs the generator, not a server
fn generated_client_files_are_fresh() {
    let output = Command::new("python3")
        .args(["clients/codegen/generate.py", "--check"])
        .current_dir(repo())
        .output()
        .expect("run python3 clients/codegen/generate.py --check");
    assert!(
        output.status.success(),
        "generated client files are stale:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `KEY: -NUMBER,` lines of a file (`"KEY": -1,` in Python, `KEY: -1,` in JS, `CodeKey: -1,` in
/// Go): every error-code table entry the generator writes, whatever the language.
fn code_table(path: &Path) -> BTreeMap<String, i64> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.trim().trim_end_matches(',').split_once(':')?;
            let number: i64 = value.trim().parse().ok()?;
            Some((key.trim().trim_matches('"').to_owned(), number))
        })
        .collect()
}

/// Go's `CodeParseError = "PARSE_ERROR"` constants, by constant name.
fn go_constants(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.trim().split_once('=')?;
            let name = name.trim();
            let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
            name.starts_with("Code")
                .then(|| (name.to_owned(), value.to_owned()))
        })
        .collect()
}

#[test]
fn every_client_carries_exactly_the_sidecar_error_codes() {
    let expected: BTreeMap<String, i64> = ErrorCode::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.rpc_code()))
        .collect();
    let clients = repo().join("clients");
    let python = code_table(&clients.join("python/src/mcp_sidecar/_generated.py"));
    let node = code_table(&clients.join("node/generated.js"));
    let go_file = clients.join("go/generated.go");
    let names = go_constants(&go_file);
    let go: BTreeMap<String, i64> = code_table(&go_file)
        .into_iter()
        .map(|(name, n)| (names.get(&name).cloned().unwrap_or(name), n))
        .collect();
    for (client, table) in [("python", python), ("node", node), ("go", go)] {
        assert_eq!(
            table, expected,
            "the {client} client's generated error codes differ from the sidecar's ErrorCode"
        );
    }
}
