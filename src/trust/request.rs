//! A trust request: everything a host shows before approving a stdio server, and the digest its
//! approval must quote back (`servers/add {…, trust: digest}`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use super::digest::{digest, Launch};
use super::risk;
use super::secrets::Secrets;
use crate::config::shell_quote;
use crate::config::source::Source;

/// A launch config's trust-relevant parts, read from a canonical config.
pub struct Subject<'a> {
    pub command: &'a str,
    pub args: Vec<String>,
    pub env: Vec<(&'a str, &'a str)>,
    pub cwd: Option<String>,
    pub url: Option<&'a str>,
    pub headers: Vec<(&'a str, &'a str)>,
    pub secret_names: BTreeSet<String>,
}

impl<'a> Subject<'a> {
    /// From a canonical config object (the `servers/add` `config`).
    pub fn from_config(config: &'a Value) -> Self {
        let pairs = |k: &str| -> Vec<(&'a str, &'a str)> {
            config
                .get(k)
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let names = |k: &str| -> Vec<String> {
            config
                .get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Self {
            command: config.get("command").and_then(Value::as_str).unwrap_or(""),
            args: names("args"),
            env: pairs("env"),
            cwd: config.get("cwd").and_then(Value::as_str).map(str::to_owned),
            url: config.get("url").and_then(Value::as_str),
            headers: headers(config),
            // Both spellings, as every reader of the config accepts them.
            secret_names: ["secretEnv", "secret_env", "secretHeaders", "secret_headers"]
                .into_iter()
                .flat_map(names)
                .chain(marked_headers(config))
                .collect(),
        }
    }

    pub fn digest(&self) -> String {
        digest(&Launch {
            command: self.command,
            args: &self.args,
            env: self.env.clone(),
            cwd: self.cwd.clone(),
            url: self.url,
            headers: self.headers.clone(),
            secret_names: &self.secret_names,
        })
    }

    pub fn secrets(&self) -> Secrets {
        Secrets::collect(
            self.env.iter().chain(&self.headers).copied(),
            &self.secret_names,
        )
    }

    /// `{commandLine, command, args, cwd, envNames, headerNames?, url?, source, warnings, digest}`;
    /// secret values masked, nothing truncated.
    pub fn to_json(&self, source: Source, plugin_root: Option<&Path>) -> Value {
        let secrets = self.secrets();
        let line: Vec<String> = std::iter::once(self.command)
            .chain(self.args.iter().map(String::as_str))
            .map(shell_quote)
            .collect();
        let mut out = json!({
            "commandLine": secrets.mask(&line.join(" ")),
            "command": secrets.mask(self.command),
            "args": self.args.iter().map(|a| secrets.mask(a)).collect::<Vec<_>>(),
            "cwd": self.cwd,
            "envNames": self.env.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            "source": source.as_str(),
            "warnings": risk::warnings(self.command, &self.args, plugin_root, self.cwd.as_deref().map(Path::new)),
            "digest": self.digest(),
        });
        if let Some(url) = self.url {
            out["url"] = Value::from(secrets.mask(url));
            out["headerNames"] = json!(self.headers.iter().map(|(k, _)| *k).collect::<Vec<_>>());
        }
        out
    }
}

/// `(name, value)` of every header, given as a string or as `{value, secret}`.
fn headers(config: &Value) -> Vec<(&str, &str)> {
    config
        .get("headers")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let value = match v {
                        Value::String(s) => s.as_str(),
                        Value::Object(o) => o.get("value")?.as_str()?,
                        _ => return None,
                    };
                    Some((k.as_str(), value))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Names of headers given as `{value, secret: true}`.
fn marked_headers(config: &Value) -> Vec<String> {
    config
        .get("headers")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(_, v)| v.get("secret") == Some(&Value::Bool(true)))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn headers_in_both_forms_are_read_and_masked() {
        let config = json!({
            "url": "https://h/mcp",
            "headers": {"X-Custom": {"value": "marked-secret-value", "secret": true}, "Authorization": "Bearer tok-abcdef", "X-Trace": "t1"}
        });
        let subject = Subject::from_config(&config);
        assert_eq!(subject.headers.len(), 3);
        assert!(subject.secret_names.contains("X-Custom"));
        let secrets = subject.secrets();
        assert_eq!(
            secrets.mask("marked-secret-value tok-abcdef t1"),
            "*** *** t1"
        );
        let request = subject.to_json(Source::Host, None).to_string();
        assert!(
            !request.contains("marked-secret-value") && !request.contains("tok-abcdef"),
            "{request}"
        );
        // The value of an object-form header is part of the digest.
        let mut changed = config.clone();
        changed["headers"]["X-Custom"]["value"] = json!("another-secret-value");
        assert_ne!(Subject::from_config(&changed).digest(), subject.digest());
    }
}
