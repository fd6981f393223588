//! The audit log (`--audit-log FILE|-`): one JSON line per request a client sent — who (the
//! client's name, its legacy session), what (method, server, tool, the call's arguments), when,
//! its outcome (`ok`, `error`, `denied`, `rate_limited`) with its code, and how long it took.
//! Arguments are masked by the secrets rules: a value under a name that looks secret
//! (`password`, `token`, `apiKey`…), a string that looks like a credential (a GitHub, OpenAI,
//! Slack, GitLab, AWS or Google key, a JWT, a `Bearer` value), and every secret the sidecar knows
//! (its servers', the clients' tokens) become `***`; then they are cut at
//! [`limits::AUDIT_ARGUMENTS_MAX_BYTES`].
//!
//! A file is opened for appending and, before each line, checked to still be the file at its path:
//! when a log rotation moved or removed it (logrotate, a shipper's own rotation), a new one is
//! created there. The sidecar does not rotate by size itself. `-` writes to stderr.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use crate::config::expand::looks_secret;
use crate::limits;
use crate::logging::{mask_registered, MASK};

/// How a request ended, as the audit line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Ok,
    Error,
    Denied,
    RateLimited,
}

impl Outcome {
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Error => "error",
            Outcome::Denied => "denied",
            Outcome::RateLimited => "rate_limited",
        }
    }
}

/// One request as audited.
pub(crate) struct AuditLine<'a> {
    pub client: &'a str,
    pub session: Option<&'a str>,
    pub method: &'a str,
    pub server: Option<&'a str>,
    pub tool: Option<&'a str>,
    pub outcome: Outcome,
    /// The JSON-RPC error code, or the stable code of a failed tool's result.
    pub code: Option<Value>,
    pub duration: Duration,
    pub arguments: Option<&'a Value>,
}

/// Where audit lines go.
pub(crate) enum Audit {
    Stderr,
    File {
        path: PathBuf,
        open: Mutex<Option<File>>,
    },
}

impl Audit {
    /// `-` for stderr, else a file (created if missing, appended to).
    pub(crate) fn open(target: &str) -> Result<Audit, String> {
        if target == "-" {
            return Ok(Audit::Stderr);
        }
        let path = PathBuf::from(target);
        let file = append(&path).map_err(|e| format!("--audit-log {target}: {e}"))?;
        Ok(Audit::File {
            path,
            open: Mutex::new(Some(file)),
        })
    }

    pub(crate) fn write(&self, line: &AuditLine<'_>) {
        let mut text = render(line, SystemTime::now()).to_string();
        text.push('\n');
        match self {
            Audit::Stderr => {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
            Audit::File { path, open } => {
                let mut open = open.lock().unwrap_or_else(|p| p.into_inner());
                if open.as_ref().is_none_or(|f| !same_file(f, path)) {
                    *open = match append(path) {
                        Ok(f) => Some(f),
                        Err(e) => {
                            tracing::error!(file = %path.display(), "the audit log cannot be reopened, its line is lost: {e}");
                            None
                        }
                    };
                }
                if let Some(file) = open.as_mut() {
                    if let Err(e) = file.write_all(text.as_bytes()) {
                        tracing::error!(file = %path.display(), "an audit line could not be written: {e}");
                    }
                }
            }
        }
    }
}

fn append(path: &std::path::Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

/// Whether `file` is still the file at `path` (not moved away or removed by a rotation).
fn same_file(file: &File, path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
}

fn render(line: &AuditLine<'_>, now: SystemTime) -> Value {
    let ts = crate::time::rfc3339(now);
    let mut out = Map::new();
    out.insert("ts".into(), json!(ts));
    out.insert("client".into(), json!(line.client));
    out.insert("session".into(), json!(line.session));
    out.insert("method".into(), json!(line.method));
    out.insert("server".into(), json!(line.server));
    out.insert("tool".into(), json!(line.tool));
    out.insert("outcome".into(), json!(line.outcome.as_str()));
    out.insert("code".into(), line.code.clone().unwrap_or(Value::Null));
    out.insert(
        "durationMs".into(),
        json!((line.duration.as_secs_f64() * 1000.0 * 10.0).round() / 10.0),
    );
    if let Some(arguments) = line.arguments {
        let mut masked = arguments.clone();
        mask(&mut masked);
        let text = masked.to_string();
        if text.len() > limits::AUDIT_ARGUMENTS_MAX_BYTES {
            let mut cut = limits::AUDIT_ARGUMENTS_MAX_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            out.insert("arguments".into(), json!(format!("{}…", &text[..cut])));
            out.insert("argumentsBytes".into(), json!(text.len()));
        } else {
            out.insert("arguments".into(), masked);
        }
    }
    Value::Object(out)
}

/// Masks a call's arguments in place (module doc).
pub(crate) fn mask(value: &mut Value) {
    match value {
        Value::String(s) => {
            if looks_like_a_credential(s) {
                *s = MASK.into();
            } else if let std::borrow::Cow::Owned(masked) = mask_registered(s) {
                *s = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if looks_secret(key) && !matches!(v, Value::Null) {
                    *v = Value::String(MASK.into());
                } else {
                    mask(v);
                }
            }
        }
        _ => {}
    }
}

/// Whether a string looks like a credential whatever its name: the prefixes of the common API
/// keys, a JWT, a bearer value.
fn looks_like_a_credential(s: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "sk-",
        "sk_live_",
        "rk_live_",
        "xoxb-",
        "xoxp-",
        "xoxa-",
        "xapp-",
        "glpat-",
        "AKIA",
        "ASIA",
        "AIza",
    ];
    let s = s.trim();
    if s.len() >= 6 && s[..6].eq_ignore_ascii_case("bearer") && s.len() > 7 {
        return true;
    }
    let word = s.len() >= 16 && !s.contains(char::is_whitespace);
    if !word {
        return false;
    }
    let jwt = s.starts_with("eyJ") && s.split('.').count() == 3;
    jwt || PREFIXES.iter().any(|p| s.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_arguments_are_masked_and_long_ones_cut() {
        let mut args = json!({
            "message": "hello",
            "password": "hunter2",
            "nested": {"apiKey": 12, "list": ["ghp_0123456789abcdefghij0123", "plain words here"]},
            "header": "Bearer abc.def",
            "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
        });
        mask(&mut args);
        assert_eq!(
            args,
            json!({
                "message": "hello",
                "password": "***",
                "nested": {"apiKey": "***", "list": ["***", "plain words here"]},
                "header": "***",
                "jwt": "***",
            })
        );
        let big = json!({"text": "x".repeat(limits::AUDIT_ARGUMENTS_MAX_BYTES * 2)});
        let line = AuditLine {
            client: "c",
            session: None,
            method: "tools/call",
            server: Some("s"),
            tool: Some("t"),
            outcome: Outcome::Ok,
            code: None,
            duration: Duration::from_micros(1500),
            arguments: Some(&big),
        };
        let rendered = render(&line, SystemTime::UNIX_EPOCH);
        assert_eq!(rendered["ts"], "1970-01-01T00:00:00.000Z");
        assert_eq!(rendered["durationMs"], 1.5);
        let cut = rendered["arguments"].as_str().unwrap();
        assert!(cut.len() <= limits::AUDIT_ARGUMENTS_MAX_BYTES + '…'.len_utf8());
        assert_eq!(
            rendered["argumentsBytes"],
            limits::AUDIT_ARGUMENTS_MAX_BYTES * 2 + 11
        );
    }
}
