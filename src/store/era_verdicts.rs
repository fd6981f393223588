//! The era verdicts kept next to the schema cache: for a server whose `protocolVersion` is
//! `"auto"`, which era its last successful start found (`legacy`, or `modern` with the revision),
//! keyed by the same launch fingerprint as its tools ([`SchemaCache::key`]), so a start with a
//! verdict goes straight to the right handshake and no probe is repeated. A verdict is only a
//! hint: a start that fails with one drops it, and the next start negotiates afresh.
//!
//! Files: `<dir>/<key>.era.json`, `{format, key, era, version, writtenAt}`, written whole to a
//! private temporary file (0600, directory 0700) and renamed into place; read through a small
//! bound; anything unexpected is a miss. All file-system access is asynchronous.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::private_file;
use super::schema_cache::SchemaCache;
use crate::{era, limits};

const FORMAT: u64 = 1;

/// What a server's last successful start found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Legacy,
    /// 2026-07-28 (or a later modern revision this build speaks).
    Modern(String),
}

impl SchemaCache {
    fn verdict_path(&self, key: &str) -> PathBuf {
        self.dir().join(format!("{key}.era.json"))
    }

    /// The verdict kept for `key`, or `None` on any kind of miss.
    pub async fn load_verdict(&self, key: &str) -> Option<Verdict> {
        let path = self.verdict_path(key);
        let doc = private_file::read(&path, limits::ERA_VERDICT_MAX_BYTES, FORMAT, key).await?;
        match (doc["era"].as_str()?, doc["version"].as_str()) {
            ("legacy", _) => Some(Verdict::Legacy),
            ("modern", Some(v)) if era::MODERN_VERSIONS.contains(&v) => {
                Some(Verdict::Modern(v.to_owned()))
            }
            _ => None,
        }
    }

    /// Keeps `verdict` for `key` (atomically; mode 0600), on a blocking-pool thread.
    pub async fn store_verdict(&self, key: &str, verdict: &Verdict) -> std::io::Result<()> {
        let (era, version) = match verdict {
            Verdict::Legacy => ("legacy", Value::Null),
            Verdict::Modern(v) => ("modern", Value::from(v.as_str())),
        };
        let doc = json!({
            "format": FORMAT,
            "key": key,
            "era": era,
            "version": version,
            "writtenAt": crate::time::rfc3339(std::time::SystemTime::now()),
        });
        private_file::write(self.dir().to_owned(), self.verdict_path(key), doc).await
    }

    /// Drops the verdict of `key` (a start with it failed): the next start negotiates.
    pub async fn forget_verdict(&self, key: &str) {
        let _ = tokio::fs::remove_file(self.verdict_path(key)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_verdict_round_trips_privately_and_a_forgotten_one_is_a_miss() {
        let dir = std::env::temp_dir().join(format!("era-verdicts-{}", std::process::id()));
        let cache = SchemaCache::new(dir.clone());
        assert_eq!(cache.load_verdict("k").await, None);
        let modern = Verdict::Modern("2026-07-28".into());
        cache.store_verdict("k", &modern).await.unwrap();
        assert_eq!(cache.load_verdict("k").await, Some(modern));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join("k.era.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(cache.load_verdict("other").await, None);
        cache.store_verdict("k", &Verdict::Legacy).await.unwrap();
        assert_eq!(cache.load_verdict("k").await, Some(Verdict::Legacy));
        cache.forget_verdict("k").await;
        assert_eq!(cache.load_verdict("k").await, None);
        std::fs::write(
            dir.join("k.era.json"),
            b"{\"format\":1,\"key\":\"k\",\"era\":\"modern\",\"version\":\"1999-01-01\"}",
        )
        .unwrap();
        assert_eq!(cache.load_verdict("k").await, None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
