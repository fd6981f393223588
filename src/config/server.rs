//! One server's launch configuration and its validation.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

use super::remote::{self, RemoteKind, RemoteSpec};
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// A validated server configuration: a stdio command, or a remote URL (`remote`).
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpec {
    /// The stdio program; empty for a remote server.
    pub command: String,
    pub args: Vec<String>,
    /// Variables set for the child on top of the allowlisted base environment.
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// Names of the sidecar's own environment variables passed through to the child.
    pub inherit_env: Vec<String>,
    pub startup_timeout: Duration,
    pub tool_timeout: Duration,
    pub max_message_bytes: usize,
    pub max_result_bytes: usize,
    /// What happens when a running server fails.
    pub restart: RestartPolicy,
    /// Base of the restart backoff (doubles per failure in the crash-loop window).
    pub restart_backoff: Duration,
    /// Ping the server after this long without a call; a missed answer counts as a failure.
    pub keepalive: Option<Duration>,
    /// Stop the server after this long without a call; the next call starts it again.
    pub idle_timeout: Option<Duration>,
    /// Recycle the server once it has run this long and is idle; the next call starts it again.
    pub max_lifetime: Option<Duration>,
    /// `false`: spawn on the first tool call, serving the tool list from the schema cache until then.
    pub auto_start: bool,
    /// What a `tools/call` result over `max_result_bytes` becomes.
    pub result_policy: ResultPolicy,
    /// `Some` for a server reached over HTTP instead of spawned.
    pub remote: Option<RemoteSpec>,
}

/// `resultPolicy`: what happens to a tool result over `maxResultBytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResultPolicy {
    /// The call fails with RESULT_TOO_LARGE (the default, as seed 000 requires).
    #[default]
    Error,
    /// The result is cut to head + tail within the budget and the full text is kept for
    /// `results/read` (see `convert::budget`).
    Truncate,
}

impl ResultPolicy {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Truncate => "truncate",
        }
    }
}

/// The `restart` policy of a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestartPolicy {
    /// A failed server stays `unhealthy` until the host calls `servers/restart`.
    Never,
    /// A failed server is restarted with exponential backoff until it crash-loops.
    OnFailure,
}

/// Canonical field names. snake_case spellings are accepted and mapped to these.
const FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "inheritEnv",
    "startupTimeoutSeconds",
    "toolTimeoutSeconds",
    "maxMessageBytes",
    "maxResultBytes",
    "restart",
    "restartBackoffMs",
    "keepaliveSeconds",
    "idleTimeoutSeconds",
    "maxLifetimeSeconds",
    "autoStart",
    "resultPolicy",
    "transport",
    "type",
    "url",
    "headers",
];

/// Fields that only make sense for a spawned server.
const STDIO_ONLY: &[&str] = &["command", "args", "env", "cwd", "inheritEnv"];

const MAX_TIMEOUT_SECONDS: f64 = 24.0 * 3600.0;
const MIN_MESSAGE_BYTES: u64 = 1024;
/// `restartBackoffMs` bounds: short enough for tests, never longer than the backoff cap.
const MIN_BACKOFF_MS: u64 = 1;
const MAX_BACKOFF_MS: u64 = limits::MAX_RESTART_BACKOFF.as_millis() as u64;
const MAX_MESSAGE_BYTES: u64 = 1024 * 1024 * 1024;

/// Server names become part of tool names sent to model providers, so they are kept simple.
pub fn validate_server_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= limits::MAX_SERVER_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "name",
            format!(
                "server name {name:?} must be 1-{} characters of letters, digits, '_' or '-'",
                limits::MAX_SERVER_NAME_BYTES
            ),
        ))
    }
}

impl ServerSpec {
    /// Parses and validates a `config` object. Unknown fields are errors (they are usually typos).
    pub fn from_json(value: &Value) -> Result<Self> {
        let Value::Object(raw) = value else {
            return Err(invalid("config", "config must be an object"));
        };
        let fields = canonical_fields(raw)?;
        let get = |k: &str| fields.get(k).copied();

        // `transport` wins over `type` (ecosystem files spell it `type`); each is validated.
        let mut kind = None;
        for key in ["type", "transport"] {
            if let Some(v) = get(key) {
                kind = Some((key, remote::parse_kind(key, v)?));
            }
        }
        let remote = match kind {
            Some((_, Some(k))) => Some(k),
            Some((key, None)) => {
                if get("url").is_some() {
                    return Err(invalid(
                        "url",
                        format!("a {key} \"stdio\" server has no url"),
                    ));
                }
                None
            }
            // Without a type, a URL means HTTP with fallback to legacy SSE.
            None => get("url").map(|_| RemoteKind::Auto),
        };
        let remote = match remote {
            Some(kind) => {
                if let Some(field) = STDIO_ONLY.iter().find(|f| get(f).is_some()) {
                    return Err(invalid(field, "is not used by a remote (http/sse) server"));
                }
                let url = match get("url") {
                    Some(v) => remote::parse_url(v)?,
                    None => return Err(invalid("url", "is required for an http or sse server")),
                };
                let headers = match get("headers") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(v) => remote::parse_headers(v)?,
                };
                Some(RemoteSpec { kind, url, headers })
            }
            None => {
                if get("headers").is_some() {
                    return Err(invalid(
                        "headers",
                        "is only used by remote (http/sse) servers",
                    ));
                }
                None
            }
        };
        let command = match (get("command"), &remote) {
            (_, Some(_)) => String::new(),
            (Some(Value::String(s)), None) if !s.trim().is_empty() => s.clone(),
            (Some(Value::String(_)), None) => return Err(invalid("command", "must not be empty")),
            (Some(_), None) => return Err(invalid("command", "must be a string")),
            (None, None) => {
                return Err(invalid(
                    "command",
                    "is required for a stdio server (or give a `url`)",
                ))
            }
        };
        let args = match get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .map(str::to_owned)
                        .ok_or_else(|| invalid(&format!("args[{i}]"), "must be a string"))
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid("args", "must be an array of strings")),
        };
        let env = match get("env") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    let field = format!("env.{k}");
                    if k.is_empty() || k.contains('=') || k.contains('\0') {
                        return Err(invalid(&field, "is not a valid variable name"));
                    }
                    match v {
                        Value::String(s) if !s.contains('\0') => Ok((k.clone(), s.clone())),
                        _ => Err(invalid(&field, "must be a string")),
                    }
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid("env", "must be an object of strings")),
        };
        let cwd = match get("cwd") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.is_empty() => Some(PathBuf::from(s)),
            Some(_) => return Err(invalid("cwd", "must be a non-empty string")),
        };
        let inherit_env = match get("inheritEnv") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .ok_or_else(|| {
                            invalid(&format!("inheritEnv[{i}]"), "must be a variable name")
                        })
                })
                .collect::<Result<_>>()?,
            Some(_) => return Err(invalid("inheritEnv", "must be an array of variable names")),
        };
        let max_message_bytes = bytes(
            get("maxMessageBytes"),
            "maxMessageBytes",
            limits::DEFAULT_MAX_MESSAGE_BYTES,
        )?;
        let max_result_bytes = bytes(
            get("maxResultBytes"),
            "maxResultBytes",
            limits::DEFAULT_MAX_RESULT_BYTES,
        )?;
        // A result arrives in one message, so a larger result limit could never be reached.
        if get("maxResultBytes").is_some_and(|v| !v.is_null())
            && max_result_bytes > max_message_bytes
        {
            return Err(invalid(
                "maxResultBytes",
                format!("{max_result_bytes} exceeds maxMessageBytes ({max_message_bytes}); a result arrives in one message"),
            ));
        }
        Ok(Self {
            command,
            args,
            env,
            cwd,
            inherit_env,
            startup_timeout: seconds(get("startupTimeoutSeconds"), "startupTimeoutSeconds", limits::DEFAULT_STARTUP_TIMEOUT)?,
            tool_timeout: seconds(get("toolTimeoutSeconds"), "toolTimeoutSeconds", limits::DEFAULT_TOOL_TIMEOUT)?,
            max_message_bytes,
            max_result_bytes,
            restart: match get("restart") {
                None | Some(Value::Null) => RestartPolicy::OnFailure,
                Some(Value::String(s)) if s == "on-failure" => RestartPolicy::OnFailure,
                Some(Value::String(s)) if s == "never" => RestartPolicy::Never,
                Some(_) => return Err(invalid("restart", "must be \"on-failure\" or \"never\"")),
            },
            restart_backoff: match get("restartBackoffMs") {
                None | Some(Value::Null) => limits::DEFAULT_RESTART_BACKOFF,
                Some(v) => match v.as_u64() {
                    Some(ms) if (MIN_BACKOFF_MS..=MAX_BACKOFF_MS).contains(&ms) => Duration::from_millis(ms),
                    _ => {
                        return Err(invalid(
                            "restartBackoffMs",
                            format!("must be an integer number of milliseconds in [{MIN_BACKOFF_MS}, {MAX_BACKOFF_MS}]"),
                        ))
                    }
                },
            },
            keepalive: optional_seconds(get("keepaliveSeconds"), "keepaliveSeconds")?,
            idle_timeout: optional_seconds(get("idleTimeoutSeconds"), "idleTimeoutSeconds")?,
            max_lifetime: optional_seconds(get("maxLifetimeSeconds"), "maxLifetimeSeconds")?,
            auto_start: match get("autoStart") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(invalid("autoStart", "must be true or false")),
            },
            result_policy: match get("resultPolicy") {
                None | Some(Value::Null) => ResultPolicy::default(),
                Some(Value::String(s)) if s == "error" => ResultPolicy::Error,
                Some(Value::String(s)) if s == "truncate" => ResultPolicy::Truncate,
                Some(_) => return Err(invalid("resultPolicy", "must be \"error\" or \"truncate\"")),
            },
            remote,
        })
    }

    /// The command line as one readable string (for status and errors), arguments quoted when needed.
    /// A remote server shows its URL (which never carries credentials).
    pub fn display_command(&self) -> String {
        if let Some(remote) = &self.remote {
            return remote.url.to_string();
        }
        std::iter::once(&self.command)
            .chain(&self.args)
            .map(|s| quote(s))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Maps every key to its canonical camelCase name, rejecting unknown and doubly-given fields.
fn canonical_fields(raw: &Map<String, Value>) -> Result<BTreeMap<&'static str, &Value>> {
    let mut out = BTreeMap::new();
    for (key, value) in raw {
        let Some(canonical) = FIELDS
            .iter()
            .copied()
            .find(|f| f == key || camel_to_snake(f) == *key)
        else {
            let hint = did_you_mean(key)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(invalid(key, format!("unknown field `{key}`{hint}")));
        };
        if out.insert(canonical, value).is_some() {
            return Err(invalid(
                key,
                format!("`{canonical}` is given twice (camelCase and snake_case)"),
            ));
        }
    }
    Ok(out)
}

/// `startupTimeoutSeconds` → `startup_timeout_seconds`: the one snake_case spelling accepted.
fn camel_to_snake(field: &str) -> String {
    let mut out = String::with_capacity(field.len() + 4);
    for c in field.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn did_you_mean(key: &str) -> Option<&'static str> {
    super::diagnostics::did_you_mean(key, FIELDS)
}

fn seconds(value: Option<&Value>, field: &str, default: Duration) -> Result<Duration> {
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 && s <= MAX_TIMEOUT_SECONDS => Ok(Duration::from_secs_f64(s)),
            _ => Err(invalid(
                field,
                format!("must be a number of seconds in (0, {MAX_TIMEOUT_SECONDS}]"),
            )),
        },
    }
}

fn optional_seconds(value: Option<&Value>, field: &str) -> Result<Option<Duration>> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => seconds(Some(v), field, Duration::ZERO).map(Some),
    }
}

fn bytes(value: Option<&Value>, field: &str, default: usize) -> Result<usize> {
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if (MIN_MESSAGE_BYTES..=MAX_MESSAGE_BYTES).contains(&n) => Ok(n as usize),
            _ => Err(invalid(field, format!("must be an integer number of bytes in [{MIN_MESSAGE_BYTES}, {MAX_MESSAGE_BYTES}]"))),
        },
    }
}

pub(super) fn invalid(field: &str, problem: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("config.{field}: {problem}"),
    )
    .with("field", field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> Error {
        ServerSpec::from_json(&v).unwrap_err()
    }

    #[test]
    fn defaults_and_snake_case() {
        let spec = ServerSpec::from_json(&json!({
            "command": "srv", "args": ["-x", "a b"], "startup_timeout_seconds": 0.5, "maxResultBytes": 2048
        }))
        .unwrap();
        assert_eq!(spec.startup_timeout, Duration::from_millis(500));
        assert_eq!(spec.tool_timeout, limits::DEFAULT_TOOL_TIMEOUT);
        assert_eq!(spec.max_result_bytes, 2048);
        assert_eq!(spec.max_message_bytes, limits::DEFAULT_MAX_MESSAGE_BYTES);
        assert_eq!(spec.result_policy, ResultPolicy::Error);
        assert_eq!(spec.display_command(), "srv -x 'a b'");
        assert_eq!(spec.restart, RestartPolicy::OnFailure);
        assert_eq!(spec.restart_backoff, limits::DEFAULT_RESTART_BACKOFF);
        assert!(
            spec.auto_start
                && spec.keepalive.is_none()
                && spec.idle_timeout.is_none()
                && spec.max_lifetime.is_none()
        );
    }

    #[test]
    fn result_policy() {
        let spec =
            ServerSpec::from_json(&json!({"command": "srv", "result_policy": "truncate"})).unwrap();
        assert_eq!(spec.result_policy, ResultPolicy::Truncate);
        assert_eq!(spec.result_policy.as_str(), "truncate");
        assert_eq!(
            err(json!({"command": "x", "resultPolicy": "cut"})).details["field"],
            "resultPolicy"
        );
    }

    #[test]
    fn supervision_fields() {
        let spec = ServerSpec::from_json(&json!({
            "command": "srv", "restart": "never", "restartBackoffMs": 20, "keepalive_seconds": 0.25,
            "idleTimeoutSeconds": 2, "maxLifetimeSeconds": 3600, "autoStart": false
        }))
        .unwrap();
        assert_eq!(spec.restart, RestartPolicy::Never);
        assert_eq!(spec.restart_backoff, Duration::from_millis(20));
        assert_eq!(spec.keepalive, Some(Duration::from_millis(250)));
        assert_eq!(spec.idle_timeout, Some(Duration::from_secs(2)));
        assert_eq!(spec.max_lifetime, Some(Duration::from_secs(3600)));
        assert!(!spec.auto_start);
        assert_eq!(
            err(json!({"command": "x", "restart": "always"})).details["field"],
            "restart"
        );
        assert_eq!(
            err(json!({"command": "x", "restartBackoffMs": 0})).details["field"],
            "restartBackoffMs"
        );
        assert_eq!(
            err(json!({"command": "x", "keepaliveSeconds": -1})).details["field"],
            "keepaliveSeconds"
        );
        assert_eq!(
            err(json!({"command": "x", "autoStart": "no"})).details["field"],
            "autoStart"
        );
    }

    #[test]
    fn errors_name_the_field() {
        let e = err(json!({"command": "x", "comand": "y"}));
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert_eq!(e.details["field"], "comand");
        assert!(
            e.message.contains("did you mean `command`"),
            "{}",
            e.message
        );
        assert_eq!(err(json!({"args": []})).details["field"], "command");
        assert_eq!(
            err(json!({"command": "x", "args": ["a", 1]})).details["field"],
            "args[1]"
        );
        assert_eq!(
            err(json!({"command": "x", "env": {"A": 1}})).details["field"],
            "env.A"
        );
        assert_eq!(
            err(json!({"command": "x", "toolTimeoutSeconds": 0})).details["field"],
            "toolTimeoutSeconds"
        );
        assert_eq!(
            err(json!({"command": "x", "maxMessageBytes": 1.5})).details["field"],
            "maxMessageBytes"
        );
        assert_eq!(
            err(json!({"command": "x", "tool_timeout_seconds": 1, "toolTimeoutSeconds": 2})).code,
            ErrorCode::ConfigInvalid
        );
        assert_eq!(
            err(json!({"command": "x", "transport": "sse"})).details["field"],
            "command"
        );
        assert_eq!(
            err(json!({"command": "x", "transport": "ws"})).details["field"],
            "transport"
        );
        assert_eq!(
            err(json!({"command": "x", "inherit__env": []})).details["field"],
            "inherit__env"
        );
        assert_eq!(
            err(json!({"command": "x", "maxMessageBytes": 4096, "maxResultBytes": 8192})).details
                ["field"],
            "maxResultBytes"
        );
        assert_eq!(err(json!([1])).details["field"], "config");
    }

    #[test]
    fn remote_kinds() {
        let kind = |v: Value| ServerSpec::from_json(&v).unwrap().remote.map(|r| r.kind);
        assert_eq!(kind(json!({"url": "http://h/mcp"})), Some(RemoteKind::Auto));
        assert_eq!(
            kind(json!({"url": "http://h/mcp", "type": "sse"})),
            Some(RemoteKind::Sse)
        );
        assert_eq!(
            kind(json!({"url": "http://h/mcp", "type": "sse", "transport": "http"})),
            Some(RemoteKind::Http)
        );
        assert_eq!(kind(json!({"command": "x"})), None);
        assert_eq!(err(json!({"type": "http"})).details["field"], "url");
        assert_eq!(
            err(json!({"url": "http://h/", "transport": "stdio", "command": "x"})).details["field"],
            "url"
        );
        assert_eq!(
            err(json!({"command": "x", "headers": {}})).details["field"],
            "headers"
        );
        assert_eq!(
            err(json!({"url": "http://h/", "args": []})).details["field"],
            "args"
        );
        assert_eq!(
            err(json!({"url": "http://h/", "headers": {"Accept": "x"}})).details["field"],
            "headers.Accept"
        );
        let spec = ServerSpec::from_json(
            &json!({"url": "http://h/mcp", "headers": {"Authorization": "Bearer s3cret"}}),
        )
        .unwrap();
        assert_eq!(spec.display_command(), "http://h/mcp");
        assert!(!format!("{spec:?}").contains("s3cret"));
    }

    #[test]
    fn server_names() {
        assert!(validate_server_name("files-1_a").is_ok());
        for bad in ["", "a.b", "a b", "ü", &"x".repeat(65)] {
            assert!(validate_server_name(bad).is_err(), "{bad:?}");
        }
    }
}
