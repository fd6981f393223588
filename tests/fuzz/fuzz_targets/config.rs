//! Every config dialect parser (Claude Desktop, Claude Code, Claude plugin, VS Code, Cursor, Codex
//! TOML, epoch, plugin manifest YAML), by detection and forced, and the inline-document entry of
//! `config::load` that checks each candidate as `servers/load` does.
//!
//! Input: byte 0 forces a dialect (or none: detected), byte 1 picks the file name the text is read
//! as (none, or one whose name or extension steers syntax and detection; its folder does not
//! exist, so nothing next to it is read), the rest is the file's text. Beyond "no panic":
//! - every candidate's canonical config is a JSON object and every diagnostic serialises;
//! - what `load_document` keeps has unique, valid server names and a config that
//!   `ServerSpec::from_json` accepts after the extension fields are split off.
#![no_main]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::config::dialects::{self, Context};
use mcp_sidecar::config::load::{load_document, Sources};
use mcp_sidecar::config::{extras, validate_server_name, Dialect, ServerSpec, Source};
use serde_json::Value;

const DIALECTS: [Option<Dialect>; 9] = [
    None,
    Some(Dialect::ClaudeDesktop),
    Some(Dialect::ClaudeCode),
    Some(Dialect::ClaudePlugin),
    Some(Dialect::Vscode),
    Some(Dialect::Cursor),
    Some(Dialect::Codex),
    Some(Dialect::Epoch),
    Some(Dialect::PluginManifest),
];

const FILES: [Option<&str>; 10] = [
    None,
    Some("/nonexistent-fuzz/claude_desktop_config.json"),
    Some("/nonexistent-fuzz/proj/.mcp.json"),
    Some("/nonexistent-fuzz/plug/.claude-plugin/plugin.json"),
    Some("/nonexistent-fuzz/proj/.vscode/mcp.json"),
    Some("/nonexistent-fuzz/proj/.cursor/mcp.json"),
    Some("/nonexistent-fuzz/codex/config.toml"),
    Some("/nonexistent-fuzz/manifest/plugin.yaml"),
    Some("/nonexistent-fuzz/manifest/plugin.yml"),
    Some("/nonexistent-fuzz/epoch/mcp.json"),
];

/// The environment `${VAR}` / `${env:VAR}` read: a few names are set, the rest are not.
fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/fuzz".into()),
        "API_TOKEN" => Some("tok-0123456789abcdef".into()),
        "EMPTY" => Some(String::new()),
        "CLAUDE_PLUGIN_ROOT" => Some("/nonexistent-fuzz/plug".into()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let [dialect, file, rest @ ..] = data else {
        return;
    };
    // A config is read as text (`read_to_string`): invalid UTF-8 never reaches a dialect.
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let forced = DIALECTS[usize::from(*dialect) % DIALECTS.len()];
    let file = FILES[usize::from(*file) % FILES.len()];
    let inputs: BTreeMap<String, String> = [("token", "input-secret-value"), ("dir", "/tmp")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();

    let ctx = Context {
        file: file.map(Path::new),
        env: &env,
        inputs: &inputs,
        source: Source::User,
    };
    let parsed = dialects::parse(text, forced, &ctx);
    for c in &parsed.servers {
        assert!(c.config.is_object(), "{}: config {}", c.name, c.config);
    }
    for d in &parsed.diagnostics {
        serde_json::to_value(d).expect("a diagnostic serialises");
    }

    if file.is_some() {
        return;
    }
    let src = Sources {
        env: &env,
        inputs: &inputs,
    };
    let loaded = load_document(&Value::String(text.to_owned()), forced, &src);
    let mut names = BTreeSet::new();
    for c in &loaded.servers {
        assert!(
            names.insert(c.name.as_str()),
            "two servers named {}",
            c.name
        );
        assert!(
            validate_server_name(&c.name).is_ok(),
            "kept a bad name {:?}",
            c.name
        );
        let (rest, _) = extras::split(&c.config).expect("kept config splits");
        assert!(
            ServerSpec::from_json(&rest).is_ok(),
            "kept a config that does not validate"
        );
    }
    for d in &loaded.diagnostics {
        serde_json::to_value(d).expect("a diagnostic serialises");
    }
});
