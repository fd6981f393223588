//! The checks of a server config's fields, one function each (what [`super::server`] builds a
//! [`super::ServerSpec`] from): command, working directory, environment, arguments, the remote
//! kind and spec, message and result limits, durations, the restart backoff.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use super::invalid::invalid;
use super::oauth::parse_oauth;
use super::package::PackageSpec;
use super::raw::{
    expects, RawSpec, MAX_BACKOFF_MS, MAX_INFLIGHT, MAX_MESSAGE_BYTES, MAX_TIMEOUT_SECONDS,
    MIN_BACKOFF_MS, MIN_MESSAGE_BYTES,
};
use super::remote::{self, RemoteKind, RemoteSpec};
use crate::error::Result;
use crate::limits;

/// Fields that only make sense for a spawned server.
const STDIO_ONLY: &[&str] = &["command", "args", "env", "cwd", "inheritEnv", "package"];
/// The remote kind the config asks for, `None` for a spawned server. `transport` wins over `type`
/// (ecosystem files spell it `type`); each is validated.
pub(super) fn remote_kind(raw: &RawSpec) -> Result<Option<RemoteKind>> {
    let mut kind = None;
    for (key, value) in [("type", &raw.kind), ("transport", &raw.transport)] {
        if let Some(v) = value {
            kind = Some((key, remote::parse_kind(key, v)?));
        }
    }
    Ok(match kind {
        Some((_, Some(k))) => Some(k),
        Some((key, None)) => {
            if raw.url.is_some() {
                return Err(invalid(
                    "url",
                    format!("a {key} \"stdio\" server has no url"),
                ));
            }
            None
        }
        // Without a type, a URL means HTTP with fallback to legacy SSE.
        None => raw.url.as_ref().map(|_| RemoteKind::Auto),
    })
}

/// The remote half of the config for a server of `kind`; for a spawned one (`None`), a check that
/// no remote-only field is given.
pub(super) fn remote_spec(
    raw: &RawSpec,
    kind: Option<RemoteKind>,
    given: &BTreeSet<&'static str>,
) -> Result<Option<RemoteSpec>> {
    let Some(kind) = kind else {
        for field in ["headers", "oauth"] {
            if given.contains(field) {
                return Err(invalid(field, "is only used by remote (http/sse) servers"));
            }
        }
        return Ok(None);
    };
    // A field given as `null` still counts: it says the config is meant for a spawn.
    if let Some(field) = STDIO_ONLY.iter().find(|f| given.contains(**f)) {
        return Err(invalid(field, "is not used by a remote (http/sse) server"));
    }
    let url = match &raw.url {
        Some(v) => remote::parse_url(v)?,
        None => return Err(invalid("url", "is required for an http or sse server")),
    };
    let headers = match &raw.headers {
        None => Vec::new(),
        Some(map) => remote::parse_headers(map)?,
    };
    let oauth = raw.oauth.as_ref().map(parse_oauth).transpose()?;
    if oauth.is_some()
        && headers
            .iter()
            .any(|h| h.name.eq_ignore_ascii_case("authorization"))
    {
        return Err(invalid(
            "oauth",
            "cannot be used with an `Authorization` header: the header would replace the tokens",
        ));
    }
    Ok(Some(RemoteSpec {
        kind,
        url,
        headers,
        oauth,
    }))
}

/// `args` within [`limits::CONFIG_ARGS_MAX`] items and [`limits::CONFIG_ARGS_MAX_BYTES`] bytes.
pub(super) fn checked_args(args: Vec<String>) -> Result<Vec<String>> {
    if args.len() > limits::CONFIG_ARGS_MAX {
        return Err(invalid(
            "args",
            format!(
                "has {} items; the limit is {}",
                args.len(),
                limits::CONFIG_ARGS_MAX
            ),
        ));
    }
    let bytes: usize = args.iter().map(String::len).sum();
    if bytes > limits::CONFIG_ARGS_MAX_BYTES {
        return Err(invalid(
            "args",
            format!(
                "hold {bytes} bytes together; the limit is {}",
                limits::CONFIG_ARGS_MAX_BYTES
            ),
        ));
    }
    Ok(args)
}

/// `env` once every name and value is one a process can be given, within
/// [`limits::CONFIG_ENV_MAX`] entries and [`limits::CONFIG_ENV_MAX_BYTES`] bytes.
pub(super) fn checked_env(env: BTreeMap<String, String>) -> Result<BTreeMap<String, String>> {
    if env.len() > limits::CONFIG_ENV_MAX {
        return Err(invalid(
            "env",
            format!(
                "has {} entries; the limit is {}",
                env.len(),
                limits::CONFIG_ENV_MAX
            ),
        ));
    }
    let bytes: usize = env.iter().map(|(k, v)| k.len() + v.len()).sum();
    if bytes > limits::CONFIG_ENV_MAX_BYTES {
        return Err(invalid(
            "env",
            format!(
                "holds {bytes} bytes; the limit is {}",
                limits::CONFIG_ENV_MAX_BYTES
            ),
        ));
    }
    for (k, v) in &env {
        let field = format!("env.{k}");
        if k.is_empty() || k.contains('=') || k.contains('\0') {
            return Err(invalid(&field, "is not a valid variable name"));
        }
        if v.contains('\0') {
            return Err(invalid(&field, expects("env", true)));
        }
    }
    Ok(env)
}

/// `maxInflight`, its default filled in.
pub(super) fn max_inflight(value: Option<u64>) -> Result<usize> {
    match value {
        None => Ok(limits::DEFAULT_SERVER_MAX_INFLIGHT),
        Some(n) if (1..=MAX_INFLIGHT).contains(&n) => Ok(n as usize),
        Some(_) => Err(invalid("maxInflight", expects("maxInflight", false))),
    }
}

/// `(maxMessageBytes, maxResultBytes)`, defaults filled in.
pub(super) fn message_limits(message: Option<u64>, result: Option<u64>) -> Result<(usize, usize)> {
    let max_message_bytes = bytes(
        message,
        "maxMessageBytes",
        limits::DEFAULT_MAX_MESSAGE_BYTES,
    )?;
    let max_result_bytes = bytes(result, "maxResultBytes", limits::DEFAULT_MAX_RESULT_BYTES)?;
    // A result arrives in one message, so a larger result limit could never be reached.
    if result.is_some() && max_result_bytes > max_message_bytes {
        return Err(invalid(
            "maxResultBytes",
            format!("{max_result_bytes} exceeds maxMessageBytes ({max_message_bytes}); a result arrives in one message"),
        ));
    }
    Ok((max_message_bytes, max_result_bytes))
}

/// A duration in seconds, `None` when not given.
pub(super) fn seconds(value: Option<f64>, field: &str) -> Result<Option<Duration>> {
    match value {
        None => Ok(None),
        Some(s) if s > 0.0 && s <= MAX_TIMEOUT_SECONDS => Ok(Some(Duration::from_secs_f64(s))),
        Some(_) => Err(invalid(field, expects(field, false))),
    }
}

pub(super) fn bytes(value: Option<u64>, field: &str, default: usize) -> Result<usize> {
    match value {
        None => Ok(default),
        Some(n) if (MIN_MESSAGE_BYTES..=MAX_MESSAGE_BYTES).contains(&n) => Ok(n as usize),
        Some(_) => Err(invalid(field, expects(field, false))),
    }
}

/// The command of a spawned server: required, not empty, and not given beside `package` (which
/// derives it); a remote server has none.
pub(super) fn command(
    command: Option<String>,
    remote: Option<&RemoteSpec>,
    package: Option<&PackageSpec>,
) -> Result<String> {
    match (command, remote) {
        (_, Some(_)) => Ok(String::new()),
        (Some(_), None) if package.is_some() => Err(invalid(
            "command",
            "is derived from `package`; give one or the other",
        )),
        (None, None) if package.is_some() => Ok(String::new()),
        (Some(s), None) if !s.trim().is_empty() => Ok(s),
        (Some(_), None) => Err(invalid("command", "must not be empty")),
        (None, None) => Err(invalid(
            "command",
            "is required for a stdio server (or give a `url`)",
        )),
    }
}

/// The working directory, `None` when not given (an empty one is an error).
pub(super) fn cwd(cwd: Option<String>) -> Result<Option<PathBuf>> {
    match cwd {
        None => Ok(None),
        Some(s) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
        Some(_) => Err(invalid("cwd", expects("cwd", false))),
    }
}

/// The names of the variables a server inherits (none of them empty).
pub(super) fn inherit_env(inherit_env: Vec<String>) -> Result<Vec<String>> {
    if let Some(i) = inherit_env.iter().position(String::is_empty) {
        return Err(invalid(
            &format!("inheritEnv[{i}]"),
            expects("inheritEnv", true),
        ));
    }
    Ok(inherit_env)
}

/// The first delay before an automatic restart, within its bounds.
pub(super) fn restart_backoff(ms: Option<u64>) -> Result<Duration> {
    match ms {
        None => Ok(limits::DEFAULT_RESTART_BACKOFF),
        Some(ms) if (MIN_BACKOFF_MS..=MAX_BACKOFF_MS).contains(&ms) => {
            Ok(Duration::from_millis(ms))
        }
        Some(_) => Err(invalid(
            "restartBackoffMs",
            expects("restartBackoffMs", false),
        )),
    }
}
