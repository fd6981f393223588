//! The sidecar's own config fields beyond the launch spec — tools policy (`includeTools`,
//! `excludeTools`, `expectTools`, `permissions`, `permissionMetaKey`), secret marks (`secretEnv`,
//! `secretHeaders`, `secretValues`), `maskSecretsInResults`, `defer` (how the server's tools are
//! presented to a model), what else the model is shown of the server (`resourcesAsTools`,
//! `pinTools`), how its calls run (`supportsParallel`), and the record of the env files a dialect
//! merged (`envFiles`) — split off a canonical config before
//! [`ServerSpec`](super::ServerSpec) reads the rest. Each in camelCase or snake_case.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::dialects::env_file::{self, EnvFile, ENV_FILES};
use super::dialects::fields::EXTENSIONS;
use super::invalid::invalid;
use super::strict::snake;
use crate::error::Result;

/// Tools policy and secret marks of one server.
///
/// `Debug` names the secret values' count only: specs and extras are logged.
#[derive(Clone, PartialEq)]
pub struct Extras {
    /// Exact names or globs (`*`, `?`); empty: every tool.
    pub include_tools: Vec<String>,
    pub exclude_tools: Vec<String>,
    /// The exact set of tools the server must list (checked before include/exclude).
    pub expect_tools: Option<Vec<String>>,
    /// The permissions the server declared; a tool's permission must be one of them.
    pub permissions: Option<Vec<String>>,
    /// The `_meta` key a tool's permission is read from.
    pub permission_meta_key: Option<String>,
    /// Names of env variables and headers marked secret.
    pub secret_names: BTreeSet<String>,
    /// The env files whose variables a dialect merged into `env` (provenance, for the trust gate).
    pub env_files: Vec<EnvFile>,
    /// Values masked wherever they appear (secret expansions that landed in args, url or cwd).
    pub secret_values: Vec<String>,
    /// Whether secret values are masked in tool results too (`maskSecretsInResults`, default true).
    pub mask_secrets_in_results: bool,
    /// `resourcesAsTools`: the server's resources offered as two tools (`list_resources`,
    /// `read_resource`); `None`: the session's choice.
    pub resources_as_tools: Option<bool>,
    /// `pinTools`: a tool whose definition changes stays out of the tool set until the host
    /// accepts it; `None`: the session's choice.
    pub pin_tools: Option<bool>,
    /// `supportsParallel` (default true): `false` serialises the server's calls in a fair queue.
    pub supports_parallel: bool,
    /// `defer`: `Some(true)`: the server's tools are always deferred (found through tool search);
    /// `Some(false)`: never; `None`: as the session's deferral rule says.
    pub defer: Option<bool>,
}

impl Default for Extras {
    fn default() -> Self {
        Self {
            include_tools: Vec::new(),
            exclude_tools: Vec::new(),
            expect_tools: None,
            permissions: None,
            permission_meta_key: None,
            secret_names: BTreeSet::new(),
            secret_values: Vec::new(),
            env_files: Vec::new(),
            mask_secrets_in_results: true,
            resources_as_tools: None,
            pin_tools: None,
            supports_parallel: true,
            defer: None,
        }
    }
}

/// `(config without the extras, extras)`; CONFIG_INVALID naming the field on a wrong type.
pub fn split(config: &Value) -> Result<(Value, Extras)> {
    let Value::Object(map) = config else {
        return Ok((config.clone(), Extras::default()));
    };
    let mut rest = Map::new();
    let mut extras = Extras::default();
    for (k, v) in map {
        if k == ENV_FILES || *k == snake(ENV_FILES) {
            extras.env_files = env_file::parse(v)?;
            continue;
        }
        // The names and types are the dialects' table of these fields: one list for both. snake_case
        // spellings are accepted, as for every other field.
        let Some(field) = EXTENSIONS
            .iter()
            .find(|f| f.name == k || snake(f.name) == *k)
        else {
            rest.insert(k.clone(), v.clone());
            continue;
        };
        match field.name {
            "permissionMetaKey" => match v {
                Value::String(s) if !s.is_empty() => extras.permission_meta_key = Some(s.clone()),
                _ => return Err(invalid(field.name, "must be a non-empty string")),
            },
            "defer" => match v {
                Value::Bool(b) => extras.defer = Some(*b),
                Value::Null => extras.defer = None,
                _ => return Err(invalid(field.name, "must be true or false")),
            },
            flag @ ("maskSecretsInResults"
            | "resourcesAsTools"
            | "pinTools"
            | "supportsParallel") => {
                let Value::Bool(b) = v else {
                    return Err(invalid(flag, "must be true or false"));
                };
                match flag {
                    "maskSecretsInResults" => extras.mask_secrets_in_results = *b,
                    "resourcesAsTools" => extras.resources_as_tools = Some(*b),
                    "pinTools" => extras.pin_tools = Some(*b),
                    _ => extras.supports_parallel = *b,
                }
            }
            name => {
                let list =
                    strings(v).ok_or_else(|| invalid(name, "must be an array of strings"))?;
                match name {
                    "includeTools" => extras.include_tools = list,
                    "excludeTools" => extras.exclude_tools = list,
                    "expectTools" => extras.expect_tools = Some(list),
                    "permissions" => extras.permissions = Some(list),
                    "secretValues" => extras.secret_values.extend(list),
                    _ => extras.secret_names.extend(list),
                }
            }
        }
    }
    Ok((Value::Object(rest), extras))
}

impl std::fmt::Debug for Extras {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extras")
            .field("include_tools", &self.include_tools)
            .field("exclude_tools", &self.exclude_tools)
            .field("expect_tools", &self.expect_tools)
            .field("permissions", &self.permissions)
            .field("permission_meta_key", &self.permission_meta_key)
            .field("secret_names", &self.secret_names)
            .field("secret_values", &self.secret_values.len())
            .field("env_files", &self.env_files)
            .field("mask_secrets_in_results", &self.mask_secrets_in_results)
            .field("resources_as_tools", &self.resources_as_tools)
            .field("pin_tools", &self.pin_tools)
            .field("supports_parallel", &self.supports_parallel)
            .field("defer", &self.defer)
            .finish()
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One value for every extension field: a table that must cover exactly [`EXTENSIONS`].
    fn table() -> Vec<(&'static str, Value)> {
        vec![
            ("includeTools", json!(["a*"])),
            ("excludeTools", json!(["b"])),
            ("expectTools", json!(["a"])),
            ("permissions", json!(["read"])),
            ("permissionMetaKey", json!("k")),
            ("secretEnv", json!(["T"])),
            ("secretHeaders", json!(["X-H"])),
            ("secretValues", json!(["v-12345678"])),
            ("maskSecretsInResults", json!(false)),
            ("resourcesAsTools", json!(true)),
            ("pinTools", json!(true)),
            ("supportsParallel", json!(false)),
            ("defer", json!(true)),
        ]
    }

    /// Every extension field, in camelCase and in snake_case, reads to the same non-default value:
    /// through `servers/add`'s reader (`split`) and end to end through each JSON dialect's reader
    /// into the canonical config and then `split` (what a loaded server is admitted with).
    #[test]
    fn every_extension_field_in_both_spellings() {
        let listed: BTreeSet<&str> = table().iter().map(|(f, _)| *f).collect();
        assert_eq!(listed, EXTENSIONS.iter().map(|f| f.name).collect());
        let inputs = std::collections::BTreeMap::new();
        let src = crate::config::load::Sources {
            env: &|_| None,
            inputs: &inputs,
        };
        for (field, value) in table() {
            let direct = |key: &str| {
                let (_, e) = split(&json!({"command": "x", key: value.clone()})).unwrap();
                e
            };
            let camel = direct(field);
            assert_ne!(camel, Extras::default(), "{field}");
            assert_eq!(camel, direct(&snake(field)), "{field}");
            for (dialect, top) in [
                (crate::config::Dialect::ClaudeCode, "mcpServers"),
                (crate::config::Dialect::Vscode, "servers"),
                (crate::config::Dialect::Cursor, "mcpServers"),
            ] {
                let loaded = |key: &str| {
                    let doc = json!({top: {"s": {"command": "x", key: value.clone()}}});
                    let l = crate::config::load::load_document(&doc, Some(dialect), &src);
                    let c = l
                        .servers
                        .first()
                        .unwrap_or_else(|| panic!("{dialect:?} {key}: {:?}", l.diagnostics));
                    split(&c.config).unwrap().1
                };
                assert_eq!(loaded(field), camel, "{dialect:?} {field}");
                assert_eq!(
                    loaded(&snake(field)),
                    camel,
                    "{dialect:?} {field} (snake_case)"
                );
            }
        }
    }

    #[test]
    fn splits() {
        let (rest, e) = split(&json!({"command": "x", "includeTools": ["a*"], "expect_tools": ["a"], "permissionMetaKey": "k", "secretEnv": ["T"]})).unwrap();
        assert_eq!(rest, json!({"command": "x"}));
        assert_eq!(e.include_tools, vec!["a*"]);
        assert_eq!(e.expect_tools, Some(vec!["a".to_owned()]));
        assert!(e.secret_names.contains("T"));
        assert_eq!(
            split(&json!({"excludeTools": "a"})).unwrap_err().details["field"],
            "excludeTools"
        );
        assert_eq!(
            split(&json!({"supports_parallel": "no"}))
                .unwrap_err()
                .details["field"],
            "supportsParallel"
        );
        let (_, e) = split(&json!({"supports_parallel": false, "pin_tools": false})).unwrap();
        assert!(
            !e.supports_parallel && e.pin_tools == Some(false) && e.resources_as_tools.is_none()
        );
    }
}
