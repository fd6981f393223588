//! The sidecar's own config fields beyond the launch spec — tools policy (`includeTools`,
//! `excludeTools`, `expectTools`, `permissions`, `permissionMetaKey`) and secret marks (`secretEnv`,
//! `secretHeaders`), and the record of the env files a dialect merged (`envFiles`) — split off a
//! canonical config before [`ServerSpec`](super::ServerSpec) reads the rest.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::dialects::env_file::{self, EnvFile, ENV_FILES};
use super::dialects::fields::EXTENSIONS;
use super::invalid::invalid;
use super::strict::snake;
use crate::error::Result;

/// Tools policy and secret marks of one server.
#[derive(Clone, Debug, Default, PartialEq)]
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
            name => {
                let list =
                    strings(v).ok_or_else(|| invalid(name, "must be an array of strings"))?;
                match name {
                    "includeTools" => extras.include_tools = list,
                    "excludeTools" => extras.exclude_tools = list,
                    "expectTools" => extras.expect_tools = Some(list),
                    "permissions" => extras.permissions = Some(list),
                    _ => extras.secret_names.extend(list),
                }
            }
        }
    }
    Ok((Value::Object(rest), extras))
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
    }
}
