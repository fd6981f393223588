//! Where tokens and client registrations are kept: one file per server (its name the sha256 of the
//! server's URL, so the file names no URL) in `<cache dir>/oauth/`, mode 0600 in a 0700 folder,
//! written whole through a temporary file and a rename; or, when the host asks, in memory only.
//! Inside a file, everything is kept per authorization server (`issuer`): a client registered with
//! one is never presented to another (SEP-2352), and the tokens of each stay apart.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::token::{Client, Tokens};
use crate::limits;

/// What is kept for one server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The authorization server the tokens in use came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    #[serde(default)]
    pub issuers: BTreeMap<String, IssuerRecord>,
}

/// What is kept for one server at one authorization server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuerRecord {
    /// A dynamically registered client (a configured one is never written here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<Client>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// The `resource` the tokens were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The scopes asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Record {
    /// The entry of the authorization server in use, with its name.
    pub fn current(&self) -> Option<(&str, &IssuerRecord)> {
        let issuer = self.current.as_deref()?;
        self.issuers.get(issuer).map(|r| (issuer, r))
    }

    /// Every value kept that must never be shown: tokens, a registered client's secret.
    pub fn secrets(&self) -> impl Iterator<Item = &str> {
        self.issuers.values().flat_map(|entry| {
            let tokens = entry.tokens.iter().flat_map(Tokens::secrets);
            let client = entry
                .client
                .iter()
                .filter_map(|c| c.client_secret.as_deref());
            tokens.chain(client)
        })
    }
}

/// The token store of a sidecar process.
pub enum TokenStore {
    /// One 0600 file per server under this folder.
    Files(PathBuf),
    /// Nothing written: tokens live as long as the process.
    Memory(Mutex<HashMap<String, Record>>),
}

impl TokenStore {
    /// Files under `<cache_dir>/oauth`.
    pub fn in_cache_dir(cache_dir: &Path) -> Self {
        Self::Files(cache_dir.join("oauth"))
    }

    pub fn memory() -> Self {
        Self::Memory(Mutex::new(HashMap::new()))
    }

    /// The file that holds `server_url`'s record (`None` in memory).
    pub fn path_of(&self, server_url: &str) -> Option<PathBuf> {
        match self {
            Self::Files(dir) => Some(dir.join(format!("{}.json", key(server_url)))),
            Self::Memory(_) => None,
        }
    }

    /// The record of `server_url`; an empty one when there is none or it cannot be read (a warning
    /// says why: a broken file means logging in again, not a failed server).
    pub async fn load(&self, server_url: &str) -> Record {
        let path = match self {
            Self::Memory(map) => {
                return lock(map).get(server_url).cloned().unwrap_or_default();
            }
            Self::Files(_) => self.path_of(server_url).unwrap_or_default(),
        };
        let read = tokio::task::spawn_blocking(move || read_bounded(&path)).await;
        match read {
            Ok(Ok(Some(bytes))) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!("the token store file of a server is not readable ({e}); a new login will replace it");
                Record::default()
            }),
            Ok(Ok(None)) => Record::default(),
            Ok(Err(e)) => {
                tracing::warn!("cannot read the token store: {e}");
                Record::default()
            }
            Err(_) => Record::default(),
        }
    }

    /// Writes `server_url`'s record whole (an empty record removes the file).
    pub async fn save(&self, server_url: &str, record: &Record) -> std::io::Result<()> {
        let path = match self {
            Self::Memory(map) => {
                let mut map = lock(map);
                if record.issuers.is_empty() {
                    map.remove(server_url);
                } else {
                    map.insert(server_url.to_owned(), record.clone());
                }
                return Ok(());
            }
            Self::Files(_) => self.path_of(server_url).unwrap_or_default(),
        };
        let bytes = if record.issuers.is_empty() {
            None
        } else {
            Some(serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?)
        };
        tokio::task::spawn_blocking(move || match bytes {
            Some(bytes) => write_private(&path, &bytes),
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            },
        })
        .await
        .map_err(std::io::Error::other)?
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The file name of a server's record: sha256 of its URL.
fn key(server_url: &str) -> String {
    hex::encode(Sha256::digest(server_url.as_bytes()))
}

fn read_bounded(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.take(limits::OAUTH_STORE_MAX_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limits::OAUTH_STORE_MAX_BYTES {
        return Err(std::io::Error::other(format!(
            "{} is larger than {} bytes",
            path.display(),
            limits::OAUTH_STORE_MAX_BYTES
        )));
    }
    Ok(Some(bytes))
}

/// Writes `bytes` to `path` readable by the owner only: a 0700 folder, a 0600 temporary file in it,
/// then a rename (a reader never sees half a file).
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("record"),
        std::process::id()
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::token::AuthMethod;

    fn record() -> Record {
        let mut r = Record {
            current: Some("https://as".into()),
            ..Default::default()
        };
        r.issuers.insert(
            "https://as".into(),
            IssuerRecord {
                client: Some(Client {
                    client_id: "c".into(),
                    client_secret: None,
                    auth_method: AuthMethod::None,
                    redirect_uri: None,
                }),
                tokens: Some(Tokens {
                    access_token: "at".into(),
                    refresh_token: None,
                    obtained_at: 1,
                    expires_at: None,
                    scope: None,
                }),
                resource: Some("http://h/mcp".into()),
                scopes: vec!["a".into()],
            },
        );
        r
    }

    #[tokio::test]
    async fn files_are_private_and_removed_when_empty() {
        let dir = std::env::temp_dir().join(format!("mcp-sidecar-store-{}", std::process::id()));
        let store = TokenStore::in_cache_dir(&dir);
        let url = "http://127.0.0.1:1/mcp?api_key=not-in-the-name";
        assert_eq!(store.load(url).await, Record::default());
        store.save(url, &record()).await.unwrap();
        let path = store.path_of(url).unwrap();
        assert!(!path.to_string_lossy().contains("api_key"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().unwrap()), 0o700);
        }
        assert_eq!(store.load(url).await, record());
        store.save(url, &Record::default()).await.unwrap();
        assert!(!path.exists());
        std::fs::write(&path, b"{broken").unwrap();
        assert_eq!(store.load(url).await, Record::default());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn memory_writes_nothing() {
        let store = TokenStore::memory();
        assert!(store.path_of("u").is_none());
        store.save("u", &record()).await.unwrap();
        assert_eq!(store.load("u").await, record());
        store.save("u", &Record::default()).await.unwrap();
        assert_eq!(store.load("u").await, Record::default());
    }
}
