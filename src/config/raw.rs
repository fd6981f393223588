//! A server config as written, in its serde shape: every field optional, camelCase with a
//! snake_case alias, types checked and nothing else. [`ServerSpec`](super::ServerSpec) validates
//! it; the messages of both (what each field must be) are here, next to the fields.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::strict;
use crate::limits;

/// `resultPolicy`: what happens to a tool result over `maxResultBytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestartPolicy {
    /// A failed server stays `unhealthy` until the host calls `servers/restart`.
    Never,
    /// A failed server is restarted with exponential backoff until it crash-loops.
    OnFailure,
}

/// A server config as written: every field optional, in camelCase with its snake_case alias (the
/// list of both is taken from this struct, see [`strict`]). Types are checked here, meaning in
/// [`ServerSpec::from_json`](super::ServerSpec::from_json). `strict::present` marks the fields
/// where `null` is a wrong type rather than "absent".
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawSpec {
    #[serde(default, deserialize_with = "strict::present")]
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    pub env: Option<BTreeMap<String, String>>,
    pub cwd: Option<String>,
    #[serde(alias = "inherit_env")]
    pub inherit_env: Option<Vec<String>>,
    #[serde(alias = "startup_timeout_seconds")]
    pub startup_timeout_seconds: Option<f64>,
    #[serde(alias = "tool_timeout_seconds")]
    pub tool_timeout_seconds: Option<f64>,
    #[serde(alias = "max_message_bytes")]
    pub max_message_bytes: Option<u64>,
    #[serde(alias = "max_result_bytes")]
    pub max_result_bytes: Option<u64>,
    pub restart: Option<RestartPolicy>,
    #[serde(alias = "restart_backoff_ms")]
    pub restart_backoff_ms: Option<u64>,
    #[serde(alias = "keepalive_seconds")]
    pub keepalive_seconds: Option<f64>,
    #[serde(alias = "idle_timeout_seconds")]
    pub idle_timeout_seconds: Option<f64>,
    #[serde(alias = "max_lifetime_seconds")]
    pub max_lifetime_seconds: Option<f64>,
    #[serde(alias = "auto_start")]
    pub auto_start: Option<bool>,
    #[serde(alias = "result_policy")]
    pub result_policy: Option<ResultPolicy>,
    #[serde(alias = "max_inflight")]
    pub max_inflight: Option<u64>,
    #[serde(alias = "reset_timeout_on_progress")]
    pub reset_timeout_on_progress: Option<bool>,
    #[serde(alias = "max_total_timeout_seconds")]
    pub max_total_timeout_seconds: Option<f64>,
    #[serde(default, deserialize_with = "strict::present")]
    pub transport: Option<String>,
    #[serde(default, deserialize_with = "strict::present", rename = "type")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    pub url: Option<String>,
    pub headers: Option<Map<String, Value>>,
    /// A remote server's OAuth client identity (`config::oauth`), validated there.
    #[serde(default, deserialize_with = "strict::present")]
    pub oauth: Option<Value>,
    /// `"auto"`, `"legacy"` or a revision (`config::protocol`), validated there.
    #[serde(
        default,
        deserialize_with = "strict::present",
        alias = "protocol_version"
    )]
    pub protocol_version: Option<String>,
    /// `false`, `true`, a preset's name or an object (`config::sandbox`), validated there.
    #[serde(default, deserialize_with = "strict::present")]
    pub sandbox: Option<Value>,
    /// A registry package pinned by hash (`config::package`), validated there.
    #[serde(default, deserialize_with = "strict::present")]
    pub package: Option<Value>,
}

/// The canonical (camelCase) names of a server config's launch fields.
pub fn field_names() -> Vec<&'static str> {
    strict::canonical_names::<RawSpec>()
}

pub(super) const MAX_TIMEOUT_SECONDS: f64 = 24.0 * 3600.0;
pub(super) const MIN_MESSAGE_BYTES: u64 = 1024;
/// `restartBackoffMs` bounds: short enough for tests, never longer than the backoff cap.
pub(super) const MIN_BACKOFF_MS: u64 = 1;
pub(super) const MAX_BACKOFF_MS: u64 = limits::MAX_RESTART_BACKOFF.as_millis() as u64;
pub(super) const MAX_MESSAGE_BYTES: u64 = 1024 * 1024 * 1024;
/// `maxInflight` bound: far above any real concurrency, low enough to mean a bound.
pub(super) const MAX_INFLIGHT: u64 = 65536;

/// What a field must be: the message of a wrong type and of a value out of range alike. `item`:
/// about one item of a list or map field (`args[1]`, `env.KEY`).
pub(super) fn expects(field: &str, item: bool) -> String {
    match (field, item) {
        ("args", false) => "must be an array of strings".into(),
        ("env", false) => "must be an object of strings".into(),
        ("inheritEnv", false) => "must be an array of variable names".into(),
        ("inheritEnv", true) => "must be a variable name".into(),
        ("cwd", _) => "must be a non-empty string".into(),
        ("headers", _) => "must be an object of header names to values".into(),
        ("oauth", _) => "must be an object (clientId, clientSecret, scopes, clientMetadataUrl, redirectUri, issuer)".into(),
        ("restart", _) => "must be \"on-failure\" or \"never\"".into(),
        ("resultPolicy", _) => "must be \"error\" or \"truncate\"".into(),
        ("protocolVersion", _) => super::protocol::ProtocolChoice::expected(),
        ("sandbox", _) => "must be false, true, a preset's name or an object".into(),
        ("package", _) => "must be an object ({\"npm\": \"name@version\", \"integrity\": …} or {\"pypi\": \"name==version\", \"sha256\": …})".into(),
        ("autoStart" | "resetTimeoutOnProgress", _) => "must be true or false".into(),
        ("maxMessageBytes" | "maxResultBytes", _) => format!(
            "must be an integer number of bytes in [{MIN_MESSAGE_BYTES}, {MAX_MESSAGE_BYTES}]"
        ),
        ("maxInflight", _) => {
            format!("must be an integer number of calls in [1, {MAX_INFLIGHT}]")
        }
        ("restartBackoffMs", _) => format!(
            "must be an integer number of milliseconds in [{MIN_BACKOFF_MS}, {MAX_BACKOFF_MS}]"
        ),
        (f, _) if f.ends_with("Seconds") => {
            format!("must be a number of seconds in (0, {MAX_TIMEOUT_SECONDS}]")
        }
        // command, type, transport, url; an item of args or env.
        _ => "must be a string".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every field is read in camelCase and in snake_case alike, to the same value, and is not
    /// dropped (the result differs from the empty config). The table covers exactly the struct's
    /// fields, so a field added without its snake_case alias fails here.
    #[test]
    fn every_field_in_both_spellings() {
        let table = [
            ("command", json!("srv")),
            ("args", json!(["-x"])),
            ("env", json!({"A": "1"})),
            ("cwd", json!("/tmp")),
            ("inheritEnv", json!(["HOME"])),
            ("startupTimeoutSeconds", json!(3)),
            ("toolTimeoutSeconds", json!(4.5)),
            ("maxMessageBytes", json!(1 << 20)),
            ("maxResultBytes", json!(2048)),
            ("restart", json!("never")),
            ("restartBackoffMs", json!(20)),
            ("keepaliveSeconds", json!(1)),
            ("idleTimeoutSeconds", json!(2)),
            ("maxLifetimeSeconds", json!(5)),
            ("autoStart", json!(false)),
            ("maxInflight", json!(8)),
            ("resetTimeoutOnProgress", json!(true)),
            ("maxTotalTimeoutSeconds", json!(600)),
            ("resultPolicy", json!("truncate")),
            ("transport", json!("sse")),
            ("type", json!("sse")),
            ("url", json!("http://h/mcp")),
            ("headers", json!({"X-A": "a"})),
            ("oauth", json!({"clientId": "c"})),
            ("protocolVersion", json!("2026-07-28")),
            ("sandbox", json!({"allowWeaker": true})),
            (
                "package",
                json!({"pypi": "x==1.0", "sha256": "0".repeat(64)}),
            ),
        ];
        let listed: std::collections::BTreeSet<&str> = table.iter().map(|(f, _)| *f).collect();
        assert_eq!(listed, field_names().into_iter().collect());
        for (field, value) in table {
            let read = |key: &str| {
                let mut config = json!({});
                config[key] = value.clone();
                strict::read::<RawSpec>(&config)
                    .unwrap_or_else(|p| panic!("{key}: {p:?}"))
                    .value
            };
            let camel = read(field);
            assert_eq!(camel, read(&strict::snake(field)), "{field}");
            assert_ne!(camel, RawSpec::default(), "{field}");
        }
    }
}
