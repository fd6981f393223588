//! The origin marker: `MCP_SIDECAR_ORIGIN=<sidecar pid>:<n>` in every server's environment, a value
//! unique to that spawn. Descendants inherit it, so a process that left its server's group (setsid
//! and a double fork) can still be attributed to the server it came from, and, after a SIGKILL of
//! the sidecar, to the sidecar (the guardian matches the `<sidecar pid>:` prefix).

/// The environment variable that carries a server's origin marker to all its descendants.
pub(crate) const ORIGIN_ENV: &str = "MCP_SIDECAR_ORIGIN";

/// How many spawns this sidecar made; the next one is its successor.
static SPAWNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// One spawn of one server; see [`ORIGIN_ENV`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Origin(u64);

impl Origin {
    /// A fresh marker, for the process about to be spawned.
    pub(crate) fn next() -> Self {
        Self(SPAWNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
    }

    /// Which spawn of this sidecar it is (1, 2, …).
    pub(crate) fn number(self) -> u64 {
        self.0
    }

    /// The value of [`ORIGIN_ENV`] for this spawn.
    pub(crate) fn env_value(self) -> String {
        format!("{}:{}", std::process::id(), self.0)
    }

    /// The prefix every marker of the sidecar `sidecar_pid` starts with.
    #[cfg(unix)]
    pub(crate) fn sidecar_prefix(sidecar_pid: u32) -> String {
        format!("{sidecar_pid}:")
    }
}
