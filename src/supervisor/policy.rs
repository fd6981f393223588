//! The tools policy, applied to a freshly discovered (or cached) tool list: `expectTools` (the exact
//! set must match, or the start fails listing both sides, as seed 000 requires), each tool's
//! `permission` from its `_meta` (must be among the declared `permissions`), then `includeTools` /
//! `excludeTools` (exact names or globs).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::config::Extras;
use crate::error::{Error, ErrorCode, Result};
use crate::mcp::ToolDef;

/// The tools a server exposes under its policy, each with its permission set.
pub(super) fn apply(server: &str, extras: &Extras, tools: Vec<ToolDef>) -> Result<Vec<ToolDef>> {
    if let Some(expected) = &extras.expect_tools {
        let want: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
        let got: BTreeSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let missing: Vec<&str> = want.difference(&got).copied().collect();
        let extra: Vec<&str> = got.difference(&want).copied().collect();
        if !missing.is_empty() || !extra.is_empty() {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                format!("server `{server}`: the tools it lists differ from expectTools: missing {missing:?}, not declared {extra:?}"),
            )
            .with("server", server)
            .with("field", "expectTools")
            .with("missing", missing)
            .with("unexpected", extra));
        }
    }
    let mut out = Vec::with_capacity(tools.len());
    for mut tool in tools {
        if let Some(key) = &extras.permission_meta_key {
            let permission = tool.raw.get("_meta").and_then(|m| m.get(key));
            tool.permission = match permission {
                None | Some(Value::Null) => None,
                Some(Value::String(p)) => Some(p.clone()),
                Some(_) => {
                    return Err(Error::new(
                        ErrorCode::ConfigInvalid,
                        format!(
                            "server `{server}`: tool `{}` has a `_meta.{key}` that is not a string",
                            tool.name
                        ),
                    )
                    .with("server", server)
                    .with("tool", tool.name.as_str())
                    .with("field", "permissionMetaKey"))
                }
            };
            if let (Some(declared), Some(p)) = (&extras.permissions, &tool.permission) {
                if !declared.contains(p) {
                    return Err(Error::new(
                        ErrorCode::ConfigInvalid,
                        format!("server `{server}`: tool `{}` needs permission `{p}`, which is not among the declared permissions {declared:?}", tool.name),
                    )
                    .with("server", server)
                    .with("tool", tool.name.as_str())
                    .with("field", "permissions"));
                }
            }
        }
        if listed(extras, tool.name.as_str()) {
            out.push(tool);
        }
    }
    Ok(out)
}

/// Whether `includeTools` / `excludeTools` let tool `name` through.
pub(super) fn listed(extras: &Extras, name: &str) -> bool {
    let included =
        extras.include_tools.is_empty() || extras.include_tools.iter().any(|g| glob(g, name));
    included && !extras.exclude_tools.iter().any(|g| glob(g, name))
}

/// `*` (any run) and `?` (one character); everything else literal.
pub(super) fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(list: &[Value]) -> Vec<ToolDef> {
        crate::mcp::validate_tools("s", list.to_vec()).unwrap()
    }

    fn t(name: &str, permission: Option<&str>, read_only: bool) -> Value {
        let mut v = json!({"name": name, "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": read_only}});
        if let Some(p) = permission {
            v["_meta"] = json!({"notesagent/permission": p});
        }
        v
    }

    #[test]
    fn globs() {
        for (p, n, ok) in [
            ("a*", "abc", true),
            ("*c", "abc", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("abc", "abc", true),
            ("ab", "abc", false),
            ("*", "", true),
            ("*_issue*", "get_issue_x", true),
        ] {
            assert_eq!(glob(p, n), ok, "{p} {n}");
        }
    }

    #[test]
    fn include_exclude() {
        let list = [
            t("get_a", None, true),
            t("get_b", None, true),
            t("put_a", None, false),
        ];
        let names = |e: &Extras| {
            apply("s", e, tools(&list))
                .unwrap()
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&Extras {
                include_tools: vec!["get_*".into()],
                ..Default::default()
            }),
            ["get_a", "get_b"]
        );
        assert_eq!(
            names(&Extras {
                exclude_tools: vec!["*_a".into()],
                ..Default::default()
            }),
            ["get_b"]
        );
        assert_eq!(
            names(&Extras {
                include_tools: vec!["put_a".into(), "get_b".into()],
                exclude_tools: vec!["get_b".into()],
                ..Default::default()
            }),
            ["put_a"]
        );
    }

    #[test]
    fn expect_tools_both_ways() {
        let list = [t("search", None, true), t("echo", None, false)];
        for (expect, missing, unexpected) in [
            (vec!["search", "echo", "gone"], json!(["gone"]), json!([])),
            (vec!["search"], json!([]), json!(["echo"])),
            (vec!["search", "other"], json!(["other"]), json!(["echo"])),
        ] {
            let e = Extras {
                expect_tools: Some(expect.iter().map(|s| s.to_string()).collect()),
                ..Default::default()
            };
            let err = apply("s", &e, tools(&list)).unwrap_err();
            assert_eq!(err.details["missing"], missing, "{}", err.message);
            assert_eq!(err.details["unexpected"], unexpected, "{}", err.message);
        }
        let ok = Extras {
            expect_tools: Some(vec!["echo".into(), "search".into()]),
            ..Default::default()
        };
        assert_eq!(apply("s", &ok, tools(&list)).unwrap().len(), 2);
    }

    #[test]
    fn permissions() {
        let list = [
            t("search", Some("notes.read"), true),
            t("plain", None, false),
        ];
        let e = Extras {
            permissions: Some(vec!["notes.read".into()]),
            permission_meta_key: Some("notesagent/permission".into()),
            ..Default::default()
        };
        let out = apply("s", &e, tools(&list)).unwrap();
        assert_eq!(out[0].permission.as_deref(), Some("notes.read"));
        assert_eq!(out[1].permission, None);
        let undeclared = Extras {
            permissions: Some(vec!["notes.write".into()]),
            ..e.clone()
        };
        assert_eq!(
            apply("s", &undeclared, tools(&list)).unwrap_err().details["field"],
            "permissions"
        );
        // Another key: the permission is read from there.
        let other = Extras {
            permission_meta_key: Some("x/perm".into()),
            permissions: None,
            ..Default::default()
        };
        assert_eq!(
            apply("s", &other, tools(&list)).unwrap()[0].permission,
            None
        );
    }
}
