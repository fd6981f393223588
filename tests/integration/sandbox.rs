//! Sandboxed servers (docs/sandbox.md): the `sandbox` field through every config dialect in both
//! spellings, bound by the trust digest.

use std::collections::BTreeMap;

use mcp_sidecar::config::load::{load_document, Sources};
use mcp_sidecar::config::{extras, ServerSpec};
use mcp_sidecar::sandbox::{NetworkPolicy, SandboxPolicy};
use mcp_sidecar::trust::digest::digest;
use serde_json::{json, Value};

fn env(name: &str) -> Option<String> {
    match name {
        "HOME" => Some("/home/u".into()),
        _ => None,
    }
}

/// The policy of server `a` of a config document (any dialect), with the digest of its launch.
fn loaded(doc: &Value) -> (Option<SandboxPolicy>, String) {
    let inputs = BTreeMap::new();
    let l = load_document(
        doc,
        None,
        &Sources {
            env: &env,
            inputs: &inputs,
        },
    );
    assert!(
        l.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        l.diagnostics
    );
    let config = &l.servers.iter().find(|c| c.name == "a").unwrap().config;
    let (launch, extras) = extras::split(config).unwrap();
    let spec = ServerSpec::from_json(&launch).unwrap_or_else(|e| panic!("{launch}: {e}"));
    let d = digest(&spec, &extras);
    (spec.sandbox, d)
}

/// Every dialect keeps `sandbox` (camelCase and snake_case inside it alike), expands `${HOME}` in
/// its paths, and the digest is the same whichever way it was written.
#[test]
fn config_passes_every_dialect_in_both_spellings() {
    // `home`: the dialect's own way to name $HOME (Codex expands nothing).
    let sandbox = |home: &str, snake: bool| {
        let mut s = json!({"preset": "strict", "read": [format!("{home}/.config/x")], "write": ["/tmp/out"],
            "network": {"loopback": [8080]}, "processes": {"spawn": false, "max": 8}});
        s["limits"] = if snake {
            json!({"memory_mb": 256, "open_files": 128, "cpu_seconds": 30})
        } else {
            json!({"memoryMb": 256, "openFiles": 128, "cpuSeconds": 30})
        };
        s[if snake { "allow_weaker" } else { "allowWeaker" }] = json!(true);
        s
    };
    let docs = |snake: bool| {
        vec![
            // Claude Code
            json!({"mcpServers": {"a": {"command": "srv", "sandbox": sandbox("${HOME}", snake)}}}),
            // VS Code
            json!({"servers": {"a": {"type": "stdio", "command": "srv", "sandbox": sandbox("${env:HOME}", snake)}}}),
            // Codex (TOML text)
            Value::from(format!(
                "[mcp_servers.a]\ncommand = \"srv\"\nsandbox = {}\n",
                toml_inline(&sandbox("/home/u", snake))
            )),
        ]
    };
    let mut digests = Vec::new();
    for doc in docs(false).into_iter().chain(docs(true)) {
        let (policy, d) = loaded(&doc);
        let policy = policy.unwrap_or_else(|| panic!("no sandbox from {doc}"));
        assert_eq!(
            policy.read,
            vec![std::path::PathBuf::from("/home/u/.config/x")],
            "{doc}"
        );
        assert_eq!(
            policy.network,
            NetworkPolicy::Loopback { ports: vec![8080] }
        );
        assert_eq!(policy.memory_bytes, Some(256 << 20));
        assert!(policy.allow_weaker && !policy.spawn);
        digests.push(d);
    }
    digests.dedup();
    assert_eq!(digests.len(), 1, "one digest whatever the spelling");
    // The key itself in snake_case is the same word; `sandbox: false` is no sandbox.
    let (off, _) = loaded(&json!({"mcpServers": {"a": {"command": "srv", "sandbox": false}}}));
    assert!(off.is_none());
}

/// A change to any field of the sandbox changes the digest: an approved server cannot be given a
/// looser (or just different) sandbox without a new approval.
#[test]
fn digest_moves_with_every_sandbox_field() {
    let d = |sandbox: Value| {
        loaded(&json!({"mcpServers": {"a": {"command": "srv", "sandbox": sandbox}}})).1
    };
    let base = json!({"read": ["/a"], "write": ["/w"], "network": "none",
        "processes": {"spawn": true, "max": 8}, "limits": {"memoryMb": 64, "openFiles": 64, "cpuSeconds": 5},
        "allowWeaker": false});
    let before = d(base.clone());
    let changes = [
        ("preset", json!("network")),
        ("read", json!(["/a", "/b"])),
        ("write", json!([])),
        ("network", json!("loopback")),
        ("processes", json!({"spawn": false, "max": 8})),
        ("processes", json!({"spawn": true, "max": 9})),
        (
            "limits",
            json!({"memoryMb": 65, "openFiles": 64, "cpuSeconds": 5}),
        ),
        (
            "limits",
            json!({"memoryMb": 64, "openFiles": 65, "cpuSeconds": 5}),
        ),
        (
            "limits",
            json!({"memoryMb": 64, "openFiles": 64, "cpuSeconds": 6}),
        ),
        ("allowWeaker", json!(true)),
    ];
    for (field, value) in changes {
        let mut changed = base.clone();
        changed[field] = value.clone();
        assert_ne!(d(changed), before, "sandbox.{field} = {value}");
    }
    assert_ne!(d(json!(false)), before);
}

/// A TOML inline table for a JSON object (enough for the sandbox's shapes).
fn toml_inline(v: &Value) -> String {
    match v {
        Value::Object(m) => format!(
            "{{ {} }}",
            m.iter()
                .map(|(k, v)| format!("{k} = {}", toml_inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(toml_inline).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}
