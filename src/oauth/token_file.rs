//! A token file (`oauth.tokenFile`): the access token a server's requests carry, read from a file
//! something else keeps fresh — a Kubernetes Secret mounted as files (updated in place by the
//! kubelet through a symlink swap), a shared volume another process writes, a file `mcp-sidecar
//! login` wrote. The sidecar only ever reads it: it never logs in, refreshes or writes for such a
//! server, so replicas reading one file never race each other for a rotated refresh token.
//!
//! The file holds the bare access token (surrounding whitespace ignored), or JSON: a token store
//! record as `mcp-sidecar login` keeps it (the tokens of its current authorization server), or
//! one object with `accessToken` (or `access_token`). It is looked at (one `stat`) before each
//! request and read again when its identity, size or modification time changed — following
//! symlinks, so a swapped `..data` link is seen — and read again regardless after a 401, so a
//! change the look cannot see (a same-size rewrite within the file system's time granularity)
//! still reaches the next attempt. Its content is never logged; each token read joins the masked
//! values.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde_json::Value;

use super::error::AuthError;
use super::store::Record;
use crate::limits;

/// One server's token file and the token last read from it.
pub(super) struct TokenFile {
    path: PathBuf,
    last: Mutex<Option<(Stamp, String)>>,
}

/// What tells one version of the file from another without reading it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Device and inode (a kubelet update points the path at a new file).
    #[cfg(unix)]
    identity: (u64, u64),
}

impl Stamp {
    fn of(path: &Path) -> std::io::Result<Stamp> {
        let meta = std::fs::metadata(path)?;
        Ok(Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            identity: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
        })
    }
}

impl TokenFile {
    pub(super) fn new(path: &Path) -> TokenFile {
        TokenFile {
            path: path.to_path_buf(),
            last: Mutex::new(None),
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The token for the next request: the one last read while the file looks the same, else read
    /// again.
    pub(super) async fn token(&self) -> Result<String, AuthError> {
        self.read(false).await
    }

    /// The token, read from the file whatever its look (after a 401).
    pub(super) async fn reread(&self) -> Result<String, AuthError> {
        self.read(true).await
    }

    /// The token last read, if any (for masking).
    pub(super) fn last(&self) -> Option<String> {
        self.lock().as_ref().map(|(_, token)| token.clone())
    }

    async fn read(&self, always: bool) -> Result<String, AuthError> {
        let path = self.path.clone();
        let last = self.lock().clone();
        let read = tokio::task::spawn_blocking(move || -> Result<(Stamp, String), String> {
            let stamp = Stamp::of(&path).map_err(|e| e.to_string())?;
            if let Some((seen, token)) = last.filter(|(seen, _)| !always && *seen == stamp) {
                return Ok((seen, token));
            }
            let bytes = read_bounded(&path)?;
            // Whatever else the file holds that must never be shown (a record's refresh token).
            crate::logging::register_secrets(secrets_in(&bytes).iter().map(String::as_str));
            Ok((stamp, token_of(&bytes)?))
        })
        .await
        .map_err(|e| self.error(&e.to_string()))?;
        let (stamp, token) = read.map_err(|why| self.error(&why))?;
        crate::logging::register_secrets([token.as_str()]);
        *self.lock() = Some((stamp, token.clone()));
        Ok(token)
    }

    fn error(&self, why: &str) -> AuthError {
        AuthError::failed(format!(
            "oauth.tokenFile {}: {why}; it is read again on the next request",
            self.path.display()
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Stamp, String)>> {
        self.last.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(limits::OAUTH_TOKEN_FILE_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limits::OAUTH_TOKEN_FILE_MAX_BYTES {
        return Err(format!(
            "larger than {} bytes (limits::OAUTH_TOKEN_FILE_MAX_BYTES)",
            limits::OAUTH_TOKEN_FILE_MAX_BYTES
        ));
    }
    Ok(bytes)
}

/// The access token in a file's bytes (see the module doc for the forms); the error never quotes
/// the content.
fn token_of(bytes: &[u8]) -> Result<String, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| "not UTF-8 text".to_owned())?
        .trim();
    let token = if text.starts_with('{') {
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON ({e})"))?;
        json_token(value)?
    } else {
        text.to_owned()
    };
    // RFC 6750's b64token, loosely: visible ASCII, so it can go into a header as it is.
    if token.is_empty() {
        return Err("holds no access token (the file is empty)".into());
    }
    if token.len() > limits::OAUTH_MAX_TOKEN_BYTES {
        return Err(format!(
            "its access token is longer than {} bytes (limits::OAUTH_MAX_TOKEN_BYTES)",
            limits::OAUTH_MAX_TOKEN_BYTES
        ));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("its access token has spaces or characters outside visible ASCII".into());
    }
    Ok(token)
}

/// Every secret a JSON token file holds: a record's tokens and client secret, an object's tokens.
fn secrets_in(bytes: &[u8]) -> Vec<String> {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Vec::new();
    };
    if let Ok(record) = serde_json::from_value::<Record>(value.clone()) {
        if !record.issuers.is_empty() {
            return record.secrets().map(str::to_owned).collect();
        }
    }
    [
        "accessToken",
        "access_token",
        "refreshToken",
        "refresh_token",
    ]
    .iter()
    .filter_map(|k| value.get(*k).and_then(Value::as_str))
    .map(str::to_owned)
    .collect()
}

fn json_token(value: Value) -> Result<String, String> {
    if value.get("issuers").is_some() {
        let record: Record =
            serde_json::from_value(value).map_err(|e| format!("not a token store record ({e})"))?;
        return record
            .current()
            .and_then(|(_, entry)| entry.tokens.as_ref())
            .map(|t| t.access_token.clone())
            .ok_or_else(|| "the token store record holds no tokens".to_owned());
    }
    ["accessToken", "access_token"]
        .iter()
        .find_map(|k| value.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .ok_or_else(|| {
            "a JSON token file needs `accessToken` (or `access_token`), or is a token store record"
                .to_owned()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_gives_its_access_token_and_bad_ones_say_why() {
        assert_eq!(token_of(b"  tok-1\n").unwrap(), "tok-1");
        assert_eq!(token_of(br#"{"accessToken": "tok-2"}"#).unwrap(), "tok-2");
        assert_eq!(token_of(br#"{"access_token": "tok-3"}"#).unwrap(), "tok-3");
        let record = r#"{"current": "https://as", "issuers": {"https://as": {"tokens":
            {"accessToken": "tok-4", "refreshToken": "r", "obtainedAt": 1}}}}"#;
        assert_eq!(token_of(record.as_bytes()).unwrap(), "tok-4");
        for (bad, why) in [
            (&b""[..], "empty"),
            (b"two words", "visible ASCII"),
            (b"{\"refresh_token\": \"secret-r\"}", "accessToken"),
            (b"{\"issuers\": {}}", "holds no tokens"),
            (b"{broken", "valid JSON"),
        ] {
            let e = token_of(bad).unwrap_err();
            assert!(e.contains(why), "{e}");
            assert!(!e.contains("secret-r"), "{e}");
        }
    }

    /// A rewrite the look cannot see (same size, same inode, the old modification time) keeps the
    /// token last read until a 401 asks for the file again; a replaced file is seen at once.
    #[tokio::test]
    async fn a_changed_file_is_read_again_and_a_reread_reads_whatever_the_look() {
        let dir =
            std::env::temp_dir().join(format!("mcp-sidecar-token-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "token-a").unwrap();
        let file = TokenFile::new(&path);
        assert_eq!(file.token().await.unwrap(), "token-a");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "token-b").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
        assert_eq!(file.token().await.unwrap(), "token-a", "looks unchanged");
        assert_eq!(file.reread().await.unwrap(), "token-b");
        // Replaced through a rename, as the kubelet's symlink swap does: a new inode.
        let next = dir.join("token.next");
        std::fs::write(&next, "token-c").unwrap();
        std::fs::rename(&next, &path).unwrap();
        assert_eq!(file.token().await.unwrap(), "token-c");
        std::fs::remove_file(&path).unwrap();
        let e = file.token().await.unwrap_err();
        assert!(e.to_string().contains("oauth.tokenFile"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
