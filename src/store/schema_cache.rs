//! The on-disk schema cache behind lazy start (`autoStart: false`): a server's tool list, keyed by a
//! fingerprint of how it is launched, so that the host can see its tools without the server running.
//!
//! Key: the sha256 of the canonical JSON of the launch config — command, args, env, cwd, the names
//! *and current values* of `inheritEnv`, and the size and modification time of the executable when
//! it can be found — so any change to what would run is a different key (a miss). Supervision
//! settings (timeouts, restart, keepalive…) are not part of the key.
//!
//! Files: `<dir>/<key>.json`, written whole to a temporary file (mode 0600, directory 0700) and
//! renamed into place. A file is read back through the same bound and the same validation as a
//! server's own `tools/list` answer: a corrupt, oversized or stale-format entry is a miss.
//!
//! Every file-system access (the key's look at the executable, reads, writes) is asynchronous, so
//! a slow disk never stalls the runtime thread that serves the host.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::private_file;
use crate::config::ServerSpec;
use crate::mcp::{self, ToolDef};
use crate::{convert, limits};

/// Bumped whenever the file layout or the key's inputs change.
const FORMAT: u64 = 1;

#[derive(Clone, Debug)]
pub struct SchemaCache {
    dir: PathBuf,
}

impl SchemaCache {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The platform cache directory: `$XDG_CACHE_HOME/mcp-sidecar`, else `~/.cache/mcp-sidecar`
    /// (`~/Library/Caches/mcp-sidecar` on macOS, `%LOCALAPPDATA%\mcp-sidecar\cache` on Windows).
    pub fn default_dir() -> Option<PathBuf> {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        if cfg!(windows) {
            return env("LOCALAPPDATA").map(|d| d.join("mcp-sidecar").join("cache"));
        }
        if cfg!(target_os = "macos") {
            return env("HOME").map(|h| h.join("Library/Caches/mcp-sidecar"));
        }
        env("XDG_CACHE_HOME")
            .or_else(|| env("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("mcp-sidecar"))
    }

    /// The cache key of a launch config: 64 hex digits. `search_path` is the `PATH` the server
    /// would be spawned with, where a bare command name is looked up.
    pub async fn key(spec: &ServerSpec, search_path: &str) -> String {
        let inherited: serde_json::Map<String, Value> = spec
            .inherit_env
            .iter()
            .map(|k| (k.clone(), std::env::var(k).map_or(Value::Null, Value::from)))
            .collect();
        let launch = json!({
            "format": FORMAT,
            "command": spec.command,
            "args": spec.args,
            "env": spec.env,
            "cwd": spec.cwd,
            "inheritEnv": inherited,
            "executable": executable_identity(spec, search_path).await,
            // Remote: the URL and headers (hashed, never stored) pick the tool set.
            "remote": spec.remote.as_ref().map(|r| json!({
                "kind": r.kind.as_str(),
                "url": r.url.as_str(),
                "headers": r.headers.iter().map(|h| [&h.name, &h.value]).collect::<Vec<_>>(),
            })),
        });
        let fp = convert::fingerprint(&[launch]);
        fp.trim_start_matches("sha256:").to_owned()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The cached, re-validated tools of `key`, or `None` on any kind of miss.
    pub async fn load(&self, key: &str, server: &str) -> Option<Vec<ToolDef>> {
        let path = self.path(key);
        let mut doc =
            private_file::read(&path, limits::SCHEMA_CACHE_MAX_BYTES, FORMAT, key).await?;
        let Value::Array(raw) = doc.get_mut("tools")?.take() else {
            return None;
        };
        match mcp::validate_tools(server, raw) {
            Ok(tools) => Some(tools),
            Err(e) => {
                tracing::warn!(
                    server,
                    "ignoring a schema-cache entry that no longer validates: {}",
                    e.message
                );
                None
            }
        }
    }

    /// Writes the tools of `key` (atomically; mode 0600), on a blocking-pool thread.
    pub async fn store(&self, key: &str, server: &str, tools: &[ToolDef]) -> std::io::Result<()> {
        let doc = json!({
            "format": FORMAT,
            "key": key,
            "server": server,
            "writtenAt": crate::time::rfc3339(std::time::SystemTime::now()),
            "tools": tools.iter().map(|t| &t.raw).collect::<Vec<_>>(),
        });
        private_file::write(self.dir.clone(), self.path(key), doc).await
    }
}

/// `{path, size, modified}` of the program the config would run, when it can be found: an upgrade of
/// the server binary is then a different key.
async fn executable_identity(spec: &ServerSpec, search_path: &str) -> Value {
    if spec.remote.is_some() {
        return Value::Null;
    }
    let candidates: Vec<PathBuf> = if spec.command.contains('/') || spec.command.contains('\\') {
        let p = PathBuf::from(&spec.command);
        vec![match &spec.cwd {
            Some(cwd) if p.is_relative() => cwd.join(p),
            _ => p,
        }]
    } else {
        std::env::split_paths(search_path)
            .map(|d| d.join(&spec.command))
            .collect()
    };
    for path in candidates {
        if let Ok(meta) = tokio::fs::metadata(&path).await {
            if meta.is_file() {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_nanos().to_string());
                return json!({ "path": path, "size": meta.len(), "modified": modified });
            }
        }
    }
    Value::Null
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(v: Value) -> ServerSpec {
        ServerSpec::from_json(&v).unwrap()
    }

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "mcp-sidecar-cache-unit-{}-{tag}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    async fn key(v: Value) -> String {
        SchemaCache::key(&spec(v), "").await
    }

    #[tokio::test]
    async fn key_depends_on_launch_config_only() {
        let a = key(json!({"command": "srv", "args": ["x"]})).await;
        assert_eq!(a.len(), 64);
        assert_eq!(
            a,
            key(json!({"command": "srv", "args": ["x"], "toolTimeoutSeconds": 5, "autoStart": false}))
                .await
        );
        assert_ne!(a, key(json!({"command": "srv", "args": ["y"]})).await);
        assert_ne!(
            a,
            key(json!({"command": "srv", "args": ["x"], "env": {"A": "1"}})).await
        );
        assert_ne!(
            a,
            key(json!({"command": "srv", "args": ["x"], "cwd": "/tmp"})).await
        );
    }

    #[tokio::test]
    async fn round_trip_private_and_corruption_is_a_miss() {
        let dir = temp("rt");
        let cache = SchemaCache::new(dir.clone());
        let key = "ab".repeat(32);
        assert!(cache.load(&key, "s").await.is_none());
        let raw = vec![json!({"name": "t", "inputSchema": {"type": "object"}})];
        let tools = mcp::validate_tools("s", raw).unwrap();
        cache.store(&key, "s", &tools).await.unwrap();
        let back = cache.load(&key, "s").await.unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].raw, tools[0].raw);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(format!("{key}.json")))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
            assert_eq!(
                std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
                0o700
            );
        }
        std::fs::write(dir.join(format!("{key}.json")), b"{not json").unwrap();
        assert!(cache.load(&key, "s").await.is_none());
        let other = "cd".repeat(32);
        std::fs::write(
            dir.join(format!("{other}.json")),
            json!({"format": 1, "key": key, "tools": []}).to_string(),
        )
        .unwrap();
        assert!(
            cache.load(&other, "s").await.is_none(),
            "an entry must carry its own key"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
