//! Who calls the gateway and what each caller may do: the bearer tokens (`--token-file`'s lines,
//! each a client allowed everything; or the `--access` file's clients, each with its own servers,
//! tools and rate limit), matched hashed and in constant time, and the audit log of what each did.
//!
//! The access file is re-read when it or a token file it names changed — seen by a `stat` of
//! those files before each request is matched (size, modification time, inode), not by a watch:
//! a Kubernetes Secret is updated by swapping a symlink, which a watch on the resolved file never
//! sees, and a stat per request costs microseconds. A file that no longer parses keeps the clients
//! of the last good one (logged); a token file that is gone or empty revokes its client alone.
//! `tokenEnv` tokens are read again too, but a process's environment does not change: rotating
//! those takes a restart.
//!
//! Its files:
//! - `audit`: The audit log (`--audit-log FILE|-`).
//! - `bucket`: A client's rate limit.
//! - `file`: The `--access` file read into clients.
//! - `lines`: The bearer tokens of `--token-file` (or `MCP_SIDECAR_TOKEN`).
//! - `rules`: What one client of the gateway may see and call.

mod audit;
mod bucket;
mod file;
mod lines;
mod rules;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(crate) use audit::{Audit, AuditLine, Outcome};
pub(crate) use bucket::Bucket;
pub(crate) use lines::Token;
pub(crate) use rules::Rules;

/// The client a request comes from.
#[derive(Clone)]
pub(crate) struct Caller {
    /// Its name in the access file; `token-N` for line N of `--token-file`.
    pub name: Arc<str>,
    pub rules: Arc<Rules>,
    /// Its rate limit, shared by all its requests (and kept across reloads while unchanged).
    pub bucket: Option<Arc<Bucket>>,
}

impl Caller {
    /// Who calls when the endpoint has no token (loopback only): one client, allowed everything.
    pub(crate) fn anonymous() -> Caller {
        Caller {
            name: Arc::from("anonymous"),
            rules: Arc::new(Rules::everything()),
            bucket: None,
        }
    }

    /// Takes one of its rate limit's tokens: `Err(when to retry)` when it has none left.
    pub(crate) fn admit(&self) -> Result<(), Duration> {
        match &self.bucket {
            Some(bucket) => bucket.take(Instant::now()),
            None => Ok(()),
        }
    }
}

/// The tokens an endpoint accepts.
pub(crate) enum Keys {
    /// `--token-file` / `MCP_SIDECAR_TOKEN`: one client per line, allowed everything.
    Lines(Token),
    /// `--access FILE`.
    File(Live),
}

impl Keys {
    /// The client `presented` (a bearer token) belongs to, if any.
    pub(crate) fn caller(&self, presented: &[u8]) -> Option<Caller> {
        match self {
            Keys::Lines(token) => token.which(presented).map(|line| Caller {
                name: Arc::from(format!("token-{}", line + 1)),
                rules: Arc::new(Rules::everything()),
                bucket: None,
            }),
            Keys::File(live) => live.caller(presented),
        }
    }
}

/// One client as matched: the hashes of its tokens and what it gets.
struct Entry {
    hashes: Vec<[u8; 32]>,
    caller: Caller,
}

/// A file's identity as a stat sees it: an edit, a replacement or a removal changes it.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Stamp(Option<(u64, Option<std::time::SystemTime>, u64)>);

fn stamp(path: &Path) -> Stamp {
    Stamp(std::fs::metadata(path).ok().map(|m| {
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            m.ino() ^ (m.ctime_nsec() as u64).rotate_left(32) ^ m.ctime() as u64
        };
        #[cfg(not(unix))]
        let inode = 0;
        (m.len(), m.modified().ok(), inode)
    }))
}

struct Loaded {
    /// The files read (the access file first) and their stamps when read.
    stamps: Vec<(PathBuf, Stamp)>,
    entries: Arc<Vec<Entry>>,
}

/// The `--access` file, kept current.
pub(crate) struct Live {
    path: PathBuf,
    loaded: Mutex<Loaded>,
    /// Each client's bucket by name, so that a reload does not refill it.
    buckets: Mutex<HashMap<String, Arc<Bucket>>>,
}

impl Live {
    /// Reads `path` at start: a mistake in it is the message to show (nothing starts).
    pub(crate) fn load(path: &Path) -> Result<Live, String> {
        let live = Live {
            path: path.to_path_buf(),
            loaded: Mutex::new(Loaded {
                stamps: Vec::new(),
                entries: Arc::default(),
            }),
            buckets: Mutex::default(),
        };
        let loaded = live.read()?;
        *live.loaded.lock().unwrap_or_else(|p| p.into_inner()) = loaded;
        Ok(live)
    }

    fn read(&self) -> Result<Loaded, String> {
        let before = stamp(&self.path);
        let clients = file::read(&self.path, &mut |token| {
            crate::logging::register_secrets([token]);
        })?;
        let mut stamps = vec![(self.path.clone(), before)];
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let mut kept = HashMap::new();
        let mut entries = Vec::with_capacity(clients.len());
        for client in clients {
            if let Some(path) = &client.token_file {
                // Stamped after reading: an edit between the two is read at the next request too.
                stamps.push((path.clone(), stamp(path)));
            }
            let bucket = client.rate.map(|rate| {
                let bucket = match buckets.remove(&client.name) {
                    Some(b) if b.limit() == rate => b,
                    _ => Arc::new(Bucket::new(rate, Instant::now())),
                };
                kept.insert(client.name.clone(), Arc::clone(&bucket));
                bucket
            });
            entries.push(Entry {
                hashes: client.hashes,
                caller: Caller {
                    name: Arc::from(client.name),
                    rules: Arc::new(client.rules),
                    bucket,
                },
            });
        }
        *buckets = kept;
        Ok(Loaded {
            stamps,
            entries: Arc::new(entries),
        })
    }

    /// The clients now: re-read first when a file changed.
    fn entries(&self) -> Arc<Vec<Entry>> {
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let changed = loaded.stamps.iter().any(|(path, was)| stamp(path) != *was);
        if changed {
            match self.read() {
                Ok(fresh) => {
                    tracing::info!(
                        file = %self.path.display(),
                        clients = fresh.entries.len(),
                        "the access file or a token file changed: clients reloaded"
                    );
                    *loaded = fresh;
                }
                Err(why) => {
                    tracing::error!("the access file was not reloaded, the clients of the last good one stay: {why}");
                    // Not tried again until the files change once more.
                    for (path, was) in loaded.stamps.iter_mut() {
                        *was = stamp(path);
                    }
                }
            }
        }
        Arc::clone(&loaded.entries)
    }

    fn caller(&self, presented: &[u8]) -> Option<Caller> {
        use subtle::ConstantTimeEq;
        let presented = file::hash(presented);
        let entries = self.entries();
        let mut found = None;
        // Every hash is compared, whichever matches: the time says nothing about which.
        for entry in entries.iter() {
            for hash in &entry.hashes {
                if bool::from(hash.ct_eq(&presented)) {
                    found = Some(entry.caller.clone());
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_token_file_is_read_again_and_a_bad_access_file_keeps_the_last_good_one() {
        let dir = std::env::temp_dir().join(format!("access-live-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (access, token) = (dir.join("access.json"), dir.join("token"));
        std::fs::write(&token, "first-token\n").unwrap();
        let text = format!(
            r#"{{"clients":[{{"name":"a","tokenFile":{token:?},"rateLimit":{{"perMinute":1,"burst":1}}}}]}}"#
        );
        std::fs::write(&access, &text).unwrap();
        let live = Live::load(&access).unwrap();
        let first = live.caller(b"first-token").unwrap();
        assert_eq!(&*first.name, "a");
        assert!(first.admit().is_ok());
        assert!(first.admit().is_err(), "a burst of one");
        std::fs::write(&token, "second-token-longer\n").unwrap();
        assert!(
            live.caller(b"first-token").is_none(),
            "the old token is refused"
        );
        let second = live.caller(b"second-token-longer").unwrap();
        assert!(
            second.admit().is_err(),
            "a reload does not refill the bucket"
        );
        std::fs::write(&access, "{ not json").unwrap();
        assert!(
            live.caller(b"second-token-longer").is_some(),
            "the last good clients"
        );
        std::fs::remove_file(&token).unwrap();
        std::fs::write(&access, &text).unwrap();
        assert!(
            live.caller(b"second-token-longer").is_none(),
            "a removed token file revokes"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
