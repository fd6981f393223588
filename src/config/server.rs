//! One server's launch configuration and its validation (the serde shape it is read into first is
//! [`raw`](super::raw)).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::invalid::invalid;
use super::package::{parse_package, PackageSpec};
use super::protocol::ProtocolChoice;
use super::raw::{expects, RawSpec, RestartPolicy, ResultPolicy};
use super::remote::RemoteSpec;
use super::sandbox::parse_sandbox;
use super::server_fields::{
    checked_args, checked_env, command, cwd, inherit_env, max_inflight, message_limits,
    remote_kind, remote_spec, restart_backoff, seconds,
};
use super::strict::{self, Problem};
use crate::error::Result;
use crate::limits;
use crate::sandbox::SandboxPolicy;

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
    /// `tools/call`s in flight at once on this server; past it a call is OVERLOADED.
    pub max_inflight: usize,
    /// Each progress notification of a call restarts its timeout (up to `max_total_timeout`).
    pub reset_timeout_on_progress: bool,
    /// The hard bound of one call, whatever progress says (a default applies when resetting).
    pub max_total_timeout: Option<Duration>,
    /// `Some` for a server reached over HTTP instead of spawned.
    pub remote: Option<RemoteSpec>,
    /// `protocolVersion`: the era the server is spoken to in (`auto` by default).
    pub protocol: ProtocolChoice,
    /// `sandbox`: what a spawned server is confined to; `None` runs it unconfined.
    pub sandbox: Option<SandboxPolicy>,
    /// `package`: the program is a registry package pinned by hash, fetched into the cache and
    /// started from there (`command` is then empty: `crate::package` derives it).
    pub package: Option<PackageSpec>,
}

/// Any name the MCP hosts accept as a key ("Time Server", "my.server", unicode) within the bounds
/// kept: not empty, at most [`limits::MAX_SERVER_NAME_BYTES`] bytes, no control character (it
/// would break a log line or a terminal). What a model sees is the name's prefix
/// ([`crate::convert::server_prefix`]), valid for every provider.
pub fn validate_server_name(name: &str) -> Result<()> {
    let why = if name.is_empty() {
        "must not be empty".to_owned()
    } else if name.len() > limits::MAX_SERVER_NAME_BYTES {
        format!(
            "is {} bytes; at most {} are accepted",
            name.len(),
            limits::MAX_SERVER_NAME_BYTES
        )
    } else if name.chars().any(char::is_control) {
        "must not contain control characters (a line break, a tab…)".to_owned()
    } else {
        return Ok(());
    };
    Err(invalid("name", format!("server name {name:?} {why}")))
}

impl ServerSpec {
    /// Parses and validates a `config` object. Unknown fields are errors (they are usually typos).
    pub fn from_json(value: &Value) -> Result<Self> {
        let strict::Read { value: raw, given } =
            strict::read::<RawSpec>(value).map_err(|p| match p {
                Problem::Invalid(e) => e,
                Problem::WrongType { top, at } => invalid(&at, expects(top, at.len() > top.len())),
            })?;
        let remote = remote_spec(&raw, remote_kind(&raw)?, &given)?;
        let sandbox = raw
            .sandbox
            .as_ref()
            .map(parse_sandbox)
            .transpose()?
            .flatten();
        if remote.is_some() && sandbox.is_some() {
            return Err(invalid(
                "sandbox",
                "is only used by a spawned (stdio) server; a remote server runs elsewhere",
            ));
        }
        let package = raw.package.as_ref().map(parse_package).transpose()?;
        let command = command(raw.command, remote.as_ref(), package.as_ref())?;
        let env = checked_env(raw.env.unwrap_or_default())?;
        let args = checked_args(raw.args.unwrap_or_default())?;
        let cwd = cwd(raw.cwd)?;
        let inherit_env = inherit_env(raw.inherit_env.unwrap_or_default())?;
        let (max_message_bytes, max_result_bytes) =
            message_limits(raw.max_message_bytes, raw.max_result_bytes)?;
        let restart_backoff = restart_backoff(raw.restart_backoff_ms)?;
        Ok(Self {
            command,
            args,
            env,
            cwd,
            inherit_env,
            startup_timeout: seconds(raw.startup_timeout_seconds, "startupTimeoutSeconds")?
                .unwrap_or(limits::DEFAULT_STARTUP_TIMEOUT),
            tool_timeout: seconds(raw.tool_timeout_seconds, "toolTimeoutSeconds")?
                .unwrap_or(limits::DEFAULT_TOOL_TIMEOUT),
            max_message_bytes,
            max_result_bytes,
            restart: raw.restart.unwrap_or(RestartPolicy::OnFailure),
            restart_backoff,
            keepalive: seconds(raw.keepalive_seconds, "keepaliveSeconds")?,
            idle_timeout: seconds(raw.idle_timeout_seconds, "idleTimeoutSeconds")?,
            max_lifetime: seconds(raw.max_lifetime_seconds, "maxLifetimeSeconds")?,
            auto_start: raw.auto_start.unwrap_or(true),
            result_policy: raw.result_policy.unwrap_or_default(),
            max_inflight: max_inflight(raw.max_inflight)?,
            reset_timeout_on_progress: raw.reset_timeout_on_progress.unwrap_or(false),
            max_total_timeout: seconds(raw.max_total_timeout_seconds, "maxTotalTimeoutSeconds")?,
            remote,
            protocol: match raw.protocol_version.as_deref() {
                None => ProtocolChoice::Auto,
                Some(v) => ProtocolChoice::parse(v)
                    .ok_or_else(|| invalid("protocolVersion", ProtocolChoice::expected()))?,
            },
            sandbox,
            package,
        })
    }

    /// The command line as one readable string (for status and errors), arguments quoted when needed.
    /// A remote server shows its URL (which never carries credentials).
    pub fn display_command(&self) -> String {
        if let Some(remote) = &self.remote {
            return remote.url.to_string();
        }
        let package = self.package.as_ref().map(PackageSpec::display);
        std::iter::once(package.as_ref().unwrap_or(&self.command))
            .chain(&self.args)
            .map(|s| shell_quote(s))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `s` as a POSIX shell word: bare when it is plainly safe, else single-quoted. For showing a
/// command line to a person (status, the trust request); nothing is ever run through a shell.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::raw::MAX_BACKOFF_MS;
    use crate::config::remote::RemoteKind;
    use crate::error::{Error, ErrorCode};
    use serde_json::json;

    fn err(v: Value) -> Error {
        ServerSpec::from_json(&v).unwrap_err()
    }

    /// A config given whole (`servers/add`) meets the same bounds as one read from a file.
    #[test]
    fn args_and_env_are_bounded() {
        let many = err(json!({"command": "x", "args": vec!["a"; limits::CONFIG_ARGS_MAX + 1]}));
        assert_eq!(many.details["field"], "args");
        assert!(
            many.message.contains("1025 items; the limit is 1024"),
            "{}",
            many.message
        );
        let long =
            err(json!({"command": "x", "args": ["a".repeat(limits::CONFIG_ARGS_MAX_BYTES + 1)]}));
        assert!(
            long.message.contains("the limit is 262144"),
            "{}",
            long.message
        );
        let env: serde_json::Map<String, Value> = (0..=limits::CONFIG_ENV_MAX)
            .map(|i| (format!("V{i}"), Value::from("1")))
            .collect();
        assert_eq!(
            err(json!({"command": "x", "env": env})).details["field"],
            "env"
        );
        let big = json!({"command": "x", "env": {"BIG": "v".repeat(limits::CONFIG_ENV_MAX_BYTES)}});
        assert!(err(big).message.contains("the limit is 262144"));
        assert!(ServerSpec::from_json(
            &json!({"command": "x", "args": vec!["a"; limits::CONFIG_ARGS_MAX]})
        )
        .is_ok());
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

    /// The exact texts: they name the field (canonical even when given in snake_case), never the
    /// value, and say what the field must be.
    #[test]
    fn messages() {
        let message = |v: Value| err(v).message;
        assert_eq!(
            message(json!({"command": "x", "comand": "y"})),
            "config.comand: unknown field `comand` (did you mean `command`?)"
        );
        assert_eq!(
            message(json!({"command": "x", "env": "TOKEN=s3cret"})),
            "config.env: must be an object of strings"
        );
        assert_eq!(
            message(json!({"command": "x", "tool_timeout_seconds": "s3cret"})),
            "config.toolTimeoutSeconds: must be a number of seconds in (0, 86400]"
        );
        assert_eq!(
            message(json!({"command": "x", "inherit_env": ["HOME", ""]})),
            "config.inheritEnv[1]: must be a variable name"
        );
        assert_eq!(
            message(json!({"command": "x", "restart": "always"})),
            "config.restart: must be \"on-failure\" or \"never\""
        );
        assert_eq!(
            message(json!({"command": null})),
            "config.command: must be a string"
        );
        assert_eq!(
            message(json!({"url": "http://h/", "args": null})),
            "config.args: is not used by a remote (http/sse) server"
        );
        assert_eq!(
            message(json!({"command": "x", "restart_backoff_ms": 1e9})),
            format!("config.restartBackoffMs: must be an integer number of milliseconds in [1, {MAX_BACKOFF_MS}]")
        );
        assert_eq!(
            message(json!({"command": "x", "maxResultBytes": 10})),
            "config.maxResultBytes: must be an integer number of bytes in [1024, 1073741824]"
        );
        assert_eq!(
            message(json!({"url": "http://h/", "headers": []})),
            "config.headers: must be an object of header names to values"
        );
    }

    /// `sandbox` confines a spawned server; a remote one runs elsewhere (`false` is harmless there).
    #[test]
    fn sandbox_is_for_spawned_servers() {
        let spec = ServerSpec::from_json(&json!({"command": "srv", "sandbox": "strict"})).unwrap();
        assert_eq!(spec.sandbox.unwrap().preset.as_deref(), Some("strict"));
        let off = ServerSpec::from_json(&json!({"command": "srv", "sandbox": false})).unwrap();
        assert!(off.sandbox.is_none());
        assert!(ServerSpec::from_json(&json!({"url": "http://h/", "sandbox": false})).is_ok());
        assert_eq!(
            err(json!({"url": "http://h/", "sandbox": true})).details["field"],
            "sandbox"
        );
        assert_eq!(
            err(json!({"command": "x", "sandbox": null})).message,
            "config.sandbox: must be false, true, a preset's name or an object"
        );
        assert_eq!(
            err(json!({"command": "x", "sandbox": {"limits": {"cpuSeconds": 0}}})).details["field"],
            "sandbox.limits.cpuSeconds"
        );
    }

    #[test]
    fn server_names() {
        for good in ["files-1_a", "a.b", "Time Server", "ü", &"x".repeat(128)] {
            assert!(validate_server_name(good).is_ok(), "{good:?}");
        }
        for bad in ["", "a\nb", "a\tb", "nul\0", "\u{7f}", &"x".repeat(129)] {
            assert!(validate_server_name(bad).is_err(), "{bad:?}");
        }
    }
}
