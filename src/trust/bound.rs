//! Which config fields the launch digest does *not* bind, and why: the one classification table.
//! Every field of a server config — the launch spec's ([`field_names`](crate::config::field_names)),
//! the sidecar's extensions ([`EXTENSIONS`](crate::config::dialects::fields::EXTENSIONS)), and
//! dialect-level fields that become something else (`envFile` → `env` + `envFiles`) — is either
//! bound (its test proves a change to it changes the digest) or listed here with its reason, which
//! `proto/PROTOCOL.md` repeats (appendix, trust gate). A field added without either fails the test.

/// A field that cannot change what is launched, what it receives or what the model is exposed to.
pub struct Unbound {
    /// The canonical (camelCase) name.
    pub field: &'static str,
    /// A valid value, JSON text (the test proves the digest does not move with it).
    pub example: &'static str,
    pub why: &'static str,
}

/// Fields left out of the digest. To add a field here, give its reason in PROTOCOL.md too.
pub const UNBOUND: &[Unbound] = &[
    Unbound {
        field: "startupTimeoutSeconds",
        example: "5",
        why: "how long the sidecar waits for a start; the program and its inputs are the same",
    },
    Unbound {
        field: "toolTimeoutSeconds",
        example: "5",
        why: "how long the sidecar waits for a call",
    },
    Unbound {
        field: "maxMessageBytes",
        example: "65536",
        why: "a bound the sidecar enforces on what the server sends; it only ever refuses more",
    },
    Unbound {
        field: "maxResultBytes",
        example: "4096",
        why: "a bound on a result's size; a result is cut or refused, never widened",
    },
    Unbound {
        field: "resultPolicy",
        example: "\"truncate\"",
        why:
            "whether a result over the bound is cut or refused; the same tools and data either way",
    },
    Unbound {
        field: "restart",
        example: "\"never\"",
        why: "whether the same approved launch is repeated after a failure",
    },
    Unbound {
        field: "restartBackoffMs",
        example: "50",
        why: "when the same approved launch is repeated",
    },
    Unbound {
        field: "keepaliveSeconds",
        example: "2",
        why: "how often the sidecar pings the server",
    },
    Unbound {
        field: "idleTimeoutSeconds",
        example: "2",
        why: "when the sidecar stops an idle server; the next call repeats the approved launch",
    },
    Unbound {
        field: "maxLifetimeSeconds",
        example: "60",
        why: "when the sidecar recycles the server; the restart is the approved launch",
    },
    Unbound {
        field: "maxInflight",
        example: "8",
        why: "how many calls the sidecar lets wait on the server; past it a call is refused",
    },
    Unbound {
        field: "resetTimeoutOnProgress",
        example: "true",
        why: "whether the sidecar keeps waiting for a call while the server reports progress",
    },
    Unbound {
        field: "maxTotalTimeoutSeconds",
        example: "600",
        why: "the longest the sidecar waits for a call, whatever progress says",
    },
    Unbound {
        field: "supportsParallel",
        example: "false",
        why: "whether the sidecar sends the server one call at a time; the same calls either way",
    },
    Unbound {
        field: "autoStart",
        example: "false",
        why: "when the approved launch happens (at add or at the first call), not what it is",
    },
    Unbound {
        field: "defer",
        example: "true",
        why: "whether the server's tool definitions reach the model up front or through tool search; the same tools are exposed and callable either way",
    },
];

/// Dialect-level fields that are not canonical config fields, with the canonical fields they become.
pub const DIALECT_FIELDS: &[(&str, &[&str])] = &[("envFile", &["env", "secretEnv", "envFiles"])];

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::{json, Value};

    use super::*;
    use crate::config::dialects::env_file::ENV_FILES;
    use crate::config::dialects::fields::EXTENSIONS;
    use crate::config::load::{load_path, Sources};
    use crate::config::{extras, field_names, ServerSpec};
    use crate::trust::digest::digest;

    const SRI: &str = "sha512-6fdvSeJm8op2Cx736ck9MO8SdbFR+Of04KC/uchXnxvCTI68dJCRaxWuUBf8cv5RKNqGK98vHjRAmadapfnuRg==";
    const SRI_OTHER: &str = "sha512-7F0hbaEB4lVqkYhNWmrC5jJjEWPCofgXd7OIk3h97HyvJL6aTAhlUNYaH8lCDxAzlK9sr2pLCkZEYI+m4HSOiA==";

    fn digest_of(config: &Value) -> String {
        let (rest, extras) = extras::split(config).unwrap_or_else(|e| panic!("{config}: {e}"));
        let spec = ServerSpec::from_json(&rest).unwrap_or_else(|e| panic!("{config}: {e}"));
        digest(&spec, &extras)
    }

    fn snake(name: &str) -> String {
        name.chars()
            .flat_map(|c| {
                let lower = c.to_ascii_lowercase();
                let under = c.is_ascii_uppercase().then_some('_');
                under.into_iter().chain(std::iter::once(lower))
            })
            .collect()
    }

    /// `config` with `value` at `field`.
    fn with(config: &Value, field: &str, value: Value) -> Value {
        let mut c = config.clone();
        c[field] = value;
        c
    }

    /// For each bound field: a config and the same config with only that field changed.
    #[allow(
        clippy::too_many_lines,
        reason = "a table of cases, one entry per line"
    )]
    fn mutations() -> Vec<(&'static str, Value, Value)> {
        let stdio = json!({"command": "srv", "args": ["a"], "env": {"A": "1"}});
        let remote = json!({"url": "http://h/mcp", "headers": {"X-A": "a"}});
        let npm = json!({"package": {"npm": "x@1.0.0", "integrity": SRI}, "args": ["a"]});
        let record = json!([{"path": "/ws/.env", "configDir": "/ws", "names": ["K"], "sha256": "sha256:00"}]);
        vec![
            (
                "command",
                stdio.clone(),
                with(&stdio, "command", json!("srv2")),
            ),
            (
                "args",
                stdio.clone(),
                with(&stdio, "args", json!(["a", "b"])),
            ),
            ("env", stdio.clone(), with(&stdio, "env", json!({"A": "2"}))),
            ("cwd", stdio.clone(), with(&stdio, "cwd", json!("/srv"))),
            (
                "inheritEnv",
                stdio.clone(),
                with(&stdio, "inheritEnv", json!(["SOME_HOST_SECRET"])),
            ),
            (
                "transport",
                remote.clone(),
                with(&remote, "transport", json!("sse")),
            ),
            ("type", remote.clone(), with(&remote, "type", json!("http"))),
            (
                "url",
                remote.clone(),
                with(&remote, "url", json!("http://h2/mcp")),
            ),
            (
                "headers",
                remote.clone(),
                with(&remote, "headers", json!({"X-A": "b"})),
            ),
            (
                "includeTools",
                stdio.clone(),
                with(&stdio, "includeTools", json!(["a*"])),
            ),
            (
                "excludeTools",
                stdio.clone(),
                with(&stdio, "excludeTools", json!(["a*"])),
            ),
            (
                "expectTools",
                stdio.clone(),
                with(&stdio, "expectTools", json!([])),
            ),
            (
                "permissions",
                stdio.clone(),
                with(&stdio, "permissions", json!(["read"])),
            ),
            (
                "permissionMetaKey",
                stdio.clone(),
                with(&stdio, "permissionMetaKey", json!("perm")),
            ),
            (
                "secretEnv",
                stdio.clone(),
                with(&stdio, "secretEnv", json!(["A"])),
            ),
            (
                "secretValues",
                stdio.clone(),
                with(&stdio, "secretValues", json!(["a-masked-value"])),
            ),
            (
                "maskSecretsInResults",
                stdio.clone(),
                with(&stdio, "maskSecretsInResults", json!(false)),
            ),
            (
                "resourcesAsTools",
                stdio.clone(),
                with(&stdio, "resourcesAsTools", json!(true)),
            ),
            (
                "pinTools",
                stdio.clone(),
                with(&stdio, "pinTools", json!(false)),
            ),
            (
                "secretHeaders",
                remote.clone(),
                with(&remote, "secretHeaders", json!(["X-A"])),
            ),
            (
                "oauth",
                remote.clone(),
                with(&remote, "oauth", json!({"clientId": "c"})),
            ),
            (
                "protocolVersion",
                stdio.clone(),
                with(&stdio, "protocolVersion", json!("2026-07-28")),
            ),
            (
                "protocolVersion",
                with(&stdio, "protocolVersion", json!("legacy")),
                with(&stdio, "protocolVersion", json!("2025-11-25")),
            ),
            (
                "sandbox",
                stdio.clone(),
                with(&stdio, "sandbox", json!("strict")),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!("strict")),
                with(&stdio, "sandbox", json!("network")),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!({"read": ["/a"]})),
                with(&stdio, "sandbox", json!({"read": ["/b"]})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!({"write": ["/a"]})),
                with(&stdio, "sandbox", json!({"write": ["/a", "/b"]})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!({"network": {"loopback": [80]}})),
                with(&stdio, "sandbox", json!({"network": {"loopback": [81]}})),
            ),
            (
                "sandbox",
                with(
                    &stdio,
                    "sandbox",
                    json!({"network": {"allow": ["a.example"]}}),
                ),
                with(
                    &stdio,
                    "sandbox",
                    json!({"network": {"allow": ["b.example"]}}),
                ),
            ),
            (
                "sandbox",
                stdio.clone(),
                with(&stdio, "sandbox", json!({"processes": {"spawn": false}})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!({"processes": {"max": 8}})),
                with(&stdio, "sandbox", json!({"processes": {"max": 9}})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!("strict")),
                with(&stdio, "sandbox", json!({"limits": {"memoryMb": 512}})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!("strict")),
                with(&stdio, "sandbox", json!({"limits": {"open_files": 64}})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!("strict")),
                with(&stdio, "sandbox", json!({"limits": {"cpuSeconds": 60}})),
            ),
            (
                "sandbox",
                with(&stdio, "sandbox", json!("strict")),
                with(&stdio, "sandbox", json!({"allow_weaker": true})),
            ),
            (
                "package",
                npm.clone(),
                with(&npm, "package", json!({"npm": "x@1.0.1", "integrity": SRI})),
            ),
            (
                "package",
                npm.clone(),
                with(
                    &npm,
                    "package",
                    json!({"npm": "x@1.0.0", "integrity": SRI_OTHER}),
                ),
            ),
            (
                "package",
                npm.clone(),
                with(
                    &npm,
                    "package",
                    json!({"npm": "x@1.0.0", "integrity": SRI, "bin": "y"}),
                ),
            ),
            (
                // A publisher pinned, or another one, for the same pin: a new launch to approve.
                "package",
                npm.clone(),
                with(
                    &npm,
                    "package",
                    json!({"npm": "x@1.0.0", "integrity": SRI, "publisher": {"repository": "https://github.com/o/r"}}),
                ),
            ),
            (
                "package",
                with(
                    &npm,
                    "package",
                    json!({"npm": "x@1.0.0", "integrity": SRI, "publisher": {"repository": "https://github.com/o/r"}}),
                ),
                with(
                    &npm,
                    "package",
                    json!({"npm": "x@1.0.0", "integrity": SRI, "publisher": {"repository": "https://github.com/o/r", "commit": "abc"}}),
                ),
            ),
            (
                ENV_FILES,
                stdio.clone(),
                with(&stdio, ENV_FILES, record.clone()),
            ),
            (ENV_FILES, with(&stdio, ENV_FILES, record.clone()), {
                let mut r = record.clone();
                r[0]["sha256"] = json!("sha256:01");
                with(&stdio, ENV_FILES, r)
            }),
            (ENV_FILES, with(&stdio, ENV_FILES, record.clone()), {
                let mut r = record.clone();
                r[0]["path"] = json!("/ws/other.env");
                with(&stdio, ENV_FILES, r)
            }),
        ]
    }

    /// Every config field is classified: bound (a change to it changes the digest, in camelCase and
    /// snake_case alike) or in [`UNBOUND`] with a reason that PROTOCOL.md gives too (and then a
    /// change to it really leaves the digest alone).
    #[test]
    fn every_config_field_is_bound_or_documented() {
        let mut fields: BTreeSet<&str> = field_names().into_iter().collect();
        fields.extend(EXTENSIONS.iter().map(|f| f.name));
        fields.insert(ENV_FILES);
        fields.extend(DIALECT_FIELDS.iter().map(|(f, _)| *f));
        let mutations = mutations();
        let bound: BTreeSet<&str> = mutations.iter().map(|(f, _, _)| *f).collect();
        let dialect: BTreeSet<&str> = DIALECT_FIELDS.iter().map(|(f, _)| *f).collect();
        let unbound: BTreeMap<&str, &Unbound> = UNBOUND.iter().map(|u| (u.field, u)).collect();
        let protocol = include_str!("../../proto/PROTOCOL.md");
        let appendix = &protocol[protocol
            .find("## Appendix: configuration loading and the trust gate")
            .unwrap()..];
        for field in &fields {
            match (
                bound.contains(field) || dialect.contains(field),
                unbound.get(field),
            ) {
                (true, None) => {}
                (true, Some(_)) => panic!("`{field}` is bound and listed as unbound"),
                (false, None) => panic!(
                    "config field `{field}` is not classified for the trust gate: give it a \
                     mutation in this test (bound) or an entry in UNBOUND and PROTOCOL.md"
                ),
                (false, Some(u)) => {
                    assert!(
                        appendix.contains(&format!("`{field}`")),
                        "PROTOCOL.md's trust-gate appendix does not say why `{field}` is unbound"
                    );
                    let base = json!({"command": "srv"});
                    let example: Value = serde_json::from_str(u.example).unwrap();
                    assert_eq!(
                        digest_of(&with(&base, field, example)),
                        digest_of(&base),
                        "`{field}` is listed as unbound but changes the digest"
                    );
                }
            }
        }
        // No stale entries: every classified name is a field.
        for name in bound.iter().chain(unbound.keys()) {
            assert!(
                fields.contains(name),
                "`{name}` is classified but is no config field"
            );
        }
        for (field, before, after) in &mutations {
            let d = digest_of(before);
            assert_ne!(
                digest_of(after),
                d,
                "a change of `{field}` leaves the digest alone"
            );
            // The snake_case spelling of the changed field gives the very same digest.
            let mut snake_after = after.clone();
            if let Some(v) = snake_after.as_object_mut().and_then(|m| m.remove(*field)) {
                snake_after[snake(field)] = v;
            }
            assert_eq!(
                digest_of(&snake_after),
                digest_of(after),
                "{field} in snake_case"
            );
        }
    }

    /// `envFile` through a real dialect read: a change to the file's contents, to the names it
    /// gives, or to which file is named changes the digest.
    #[test]
    fn env_file_changes_move_the_digest() {
        let root = std::env::temp_dir().join(format!("mcp-sidecar-bound-{}", std::process::id()));
        let vscode = root.join(".vscode");
        std::fs::create_dir_all(&vscode).unwrap();
        let config = vscode.join("mcp.json");
        let inputs = BTreeMap::new();
        let src = Sources {
            env: &|_| None,
            inputs: &inputs,
        };
        let digest_with = |file: &str, text: &str| {
            std::fs::write(root.join(file), text).unwrap();
            std::fs::write(
                &config,
                json!({"servers": {"s": {"type": "stdio", "command": "sh", "envFile": format!("${{workspaceFolder}}/{file}")}}})
                    .to_string(),
            )
            .unwrap();
            let loaded = load_path(&config, None, &src);
            let c = loaded
                .servers
                .iter()
                .find(|c| c.name == "s")
                .unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
            digest_of(&c.config)
        };
        let d = digest_with("a.env", "K=v1\n");
        assert_eq!(digest_with("a.env", "K=v1\n"), d, "stable");
        assert_ne!(digest_with("a.env", "K=v2\n"), d, "contents");
        assert_ne!(
            digest_with("a.env", "K=v1\n# note\n"),
            d,
            "a comment is contents too"
        );
        assert_ne!(digest_with("a.env", "J=v1\n"), d, "names");
        assert_ne!(digest_with("b.env", "K=v1\n"), d, "path");
        let _ = std::fs::remove_dir_all(&root);
    }
}
