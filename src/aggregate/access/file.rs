//! The `--access` file read into clients: each client's name, where its token comes from
//! (`tokenFile`: every non-empty line is one of its tokens, so an old and a new token can both be
//! valid during a rotation; `tokenEnv`: an environment variable, fixed for the process's life;
//! `tokenSha256`: the hex SHA-256 of the token, so the file holds no secret), the servers and tools
//! it may use, and its rate limit. Both spellings of every field (`tokenFile` / `token_file`).
//! A mistake is an error naming the client and the field. Tokens leave this file only hashed.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::bucket::RateLimit;
use super::rules::Rules;
use crate::limits;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    clients: Vec<RawClient>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClient {
    name: String,
    #[serde(default, alias = "token_file", rename = "tokenFile")]
    token_file: Option<PathBuf>,
    #[serde(default, alias = "token_env", rename = "tokenEnv")]
    token_env: Option<String>,
    #[serde(default, alias = "token_sha256", rename = "tokenSha256")]
    token_sha256: Option<String>,
    #[serde(default)]
    servers: Option<Vec<String>>,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default, alias = "rate_limit", rename = "rateLimit")]
    rate_limit: Option<RawRate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRate {
    #[serde(alias = "per_minute", rename = "perMinute")]
    per_minute: f64,
    #[serde(default)]
    burst: Option<f64>,
}

/// One client as read: its tokens' hashes (empty when its token file has none: it can do nothing).
pub(crate) struct Client {
    pub name: String,
    pub hashes: Vec<[u8; 32]>,
    pub rules: Rules,
    pub rate: Option<RateLimit>,
    /// The token file read, whose edits reload the access.
    pub token_file: Option<PathBuf>,
}

/// The SHA-256 of a token, as clients are matched.
pub(crate) fn hash(token: &[u8]) -> [u8; 32] {
    Sha256::digest(token).into()
}

/// Reads and checks `path`. Every token value read is handed to `secret` (to mask it in logs).
pub(crate) fn read(path: &Path, secret: &mut dyn FnMut(&str)) -> Result<Vec<Client>, String> {
    let text = read_bounded(path, limits::ACCESS_FILE_MAX_BYTES)?;
    parse(&text, secret).map_err(|why| format!("{}: {why}", path.display()))
}

fn read_bounded(path: &Path, max: u64) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(max + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() as u64 > max {
        return Err(format!(
            "{}: larger than {max} bytes (the bound of this file)",
            path.display()
        ));
    }
    Ok(text)
}

pub(crate) fn parse(text: &str, secret: &mut dyn FnMut(&str)) -> Result<Vec<Client>, String> {
    let raw: Raw =
        serde_json::from_str(text).map_err(|e| format!("not a valid access file: {e}"))?;
    if raw.clients.len() > limits::ACCESS_MAX_CLIENTS {
        return Err(format!(
            "{} clients; at most {} (ACCESS_MAX_CLIENTS)",
            raw.clients.len(),
            limits::ACCESS_MAX_CLIENTS
        ));
    }
    let mut clients: Vec<Client> = Vec::with_capacity(raw.clients.len());
    for c in raw.clients {
        let client = read_client(c, &clients, secret)?;
        clients.push(client);
    }
    Ok(clients)
}

/// One client checked, after those read before it (`known`: its name must be new).
fn read_client(
    c: RawClient,
    known: &[Client],
    secret: &mut dyn FnMut(&str),
) -> Result<Client, String> {
    let name = c.name.trim().to_owned();
    if name.is_empty() {
        return Err("a client has an empty `name`".into());
    }
    if known.iter().any(|k| k.name == name) {
        return Err(format!("client `{name}` is named twice"));
    }
    let sources = [
        c.token_file.is_some(),
        c.token_env.is_some(),
        c.token_sha256.is_some(),
    ];
    if sources.iter().filter(|s| **s).count() != 1 {
        return Err(at(
            &name,
            "tokenFile",
            "give exactly one of tokenFile, tokenEnv, tokenSha256",
        ));
    }
    let hashes = token_hashes(&c, &name, secret)?;
    let rate = rate_limit(c.rate_limit.as_ref(), &name)?;
    if c.tools.iter().any(|p| p.trim_start_matches('!').is_empty()) {
        return Err(at(&name, "tools", "an empty pattern"));
    }
    Ok(Client {
        name,
        hashes,
        rules: Rules::new(c.servers, c.tools),
        rate,
        token_file: c.token_file,
    })
}

/// A mistake in one field of one client.
fn at(client: &str, field: &str, why: &str) -> String {
    format!("client `{client}`, `{field}`: {why}")
}

/// The hashes of a client's tokens, from whichever source it names (each token read is handed to
/// `secret`). A token file that cannot be read leaves the client without tokens, not the file
/// refused.
fn token_hashes(
    c: &RawClient,
    name: &str,
    secret: &mut dyn FnMut(&str),
) -> Result<Vec<[u8; 32]>, String> {
    let mut hashes = Vec::new();
    if let Some(file) = &c.token_file {
        match read_bounded(file, limits::ACCESS_TOKEN_FILE_MAX_BYTES) {
            Ok(text) => {
                for token in tokens_of(&text) {
                    secret(token);
                    hashes.push(hash(token.as_bytes()));
                }
                if hashes.is_empty() {
                    tracing::warn!(client = %name, file = %file.display(), "the client's token file holds no token: its requests are refused");
                }
            }
            // A missing file revokes the client (fail closed), the others go on.
            Err(why) => {
                tracing::warn!(client = %name, "the client's token file cannot be read, its requests are refused: {why}")
            }
        }
    }
    if let Some(var) = &c.token_env {
        let value = std::env::var(var).unwrap_or_default();
        let value = value.trim();
        if value.is_empty() {
            return Err(at(
                name,
                "tokenEnv",
                &format!("the variable `{var}` is not set"),
            ));
        }
        secret(value);
        hashes.push(hash(value.as_bytes()));
    }
    if let Some(hex) = &c.token_sha256 {
        hashes.push(
            hex_digest(hex)
                .ok_or_else(|| at(name, "tokenSha256", "64 hexadecimal digits are expected"))?,
        );
    }
    Ok(hashes)
}

/// A client's rate limit, checked (`burst` defaults to the rate per minute).
fn rate_limit(rate: Option<&RawRate>, name: &str) -> Result<Option<RateLimit>, String> {
    let Some(r) = rate else {
        return Ok(None);
    };
    let burst = r.burst.unwrap_or(r.per_minute);
    if !(r.per_minute.is_finite() && r.per_minute > 0.0) {
        return Err(at(
            name,
            "rateLimit.perMinute",
            "a number above 0 is expected",
        ));
    }
    if !(burst.is_finite() && burst >= 1.0) {
        return Err(at(
            name,
            "rateLimit.burst",
            "a number of at least 1 is expected",
        ));
    }
    Ok(Some(RateLimit {
        per_minute: r.per_minute,
        burst,
    }))
}

/// The tokens of a token file: its non-empty lines (`\n` or `\r\n`), trimmed.
pub(crate) fn tokens_of(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty())
}

fn hex_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<Client>, String> {
        parse(text, &mut |_| {})
    }

    #[test]
    fn both_spellings_read_the_same() {
        let dir = std::env::temp_dir().join(format!("access-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let token = dir.join("t");
        std::fs::write(&token, "old-token\r\nnew-token\n\n").unwrap();
        let camel = format!(
            r#"{{"clients":[{{"name":"a","tokenFile":{:?},"rateLimit":{{"perMinute":60,"burst":2}}}}]}}"#,
            token
        );
        let snake = format!(
            r#"{{"clients":[{{"name":"a","token_file":{:?},"rate_limit":{{"per_minute":60,"burst":2}}}}]}}"#,
            token
        );
        let mut seen = Vec::new();
        let a = parse(&camel, &mut |s| seen.push(s.to_owned())).unwrap();
        let b = parsed(&snake).unwrap();
        assert_eq!(seen, ["old-token", "new-token"]);
        for c in [&a[0], &b[0]] {
            assert_eq!(
                c.hashes,
                vec![hash(b"old-token"), hash(b"new-token")],
                "every line is a token"
            );
            assert_eq!(
                c.rate,
                Some(RateLimit {
                    per_minute: 60.0,
                    burst: 2.0
                })
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mistakes_name_the_client_and_the_field() {
        let sha = "ab".repeat(32);
        let ok = format!(r#"{{"clients":[{{"name":"x","tokenSha256":"{sha}"}}]}}"#);
        assert_eq!(parsed(&ok).unwrap()[0].hashes, vec![[0xab; 32]]);
        let cases = [
            (
                r#"{"clients":[{"name":"x"}]}"#.to_owned(),
                "client `x`, `tokenFile`",
            ),
            (
                r#"{"clients":[{"name":"x","tokenSha256":"abc"}]}"#.to_owned(),
                "`tokenSha256`: 64",
            ),
            (
                format!(
                    r#"{{"clients":[{{"name":"x","tokenSha256":"{sha}","rateLimit":{{"perMinute":0}}}}]}}"#
                ),
                "`rateLimit.perMinute`",
            ),
            (
                format!(
                    r#"{{"clients":[{{"name":"x","tokenSha256":"{sha}"}},{{"name":"x","tokenSha256":"{sha}"}}]}}"#
                ),
                "named twice",
            ),
            (
                format!(r#"{{"clients":[{{"name":"x","tokenSha256":"{sha}","tols":[]}}]}}"#),
                "unknown field `tols`",
            ),
            (
                r#"{"clients":[{"name":"x","tokenEnv":"MCP_SIDECAR_TEST_UNSET_VARIABLE"}]}"#
                    .to_owned(),
                "`MCP_SIDECAR_TEST_UNSET_VARIABLE` is not set",
            ),
        ];
        for (text, needle) in cases {
            let e = parsed(&text).err().unwrap_or_default();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
