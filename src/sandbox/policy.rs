//! What a server's sandbox asks for, as the config gives it once its preset's defaults are filled in
//! ([`SandboxPolicy`]); what is enforced is [`SandboxLevel`](super::SandboxLevel)'s. The paths a
//! preset grants on top of `read` and `write` depend on the program being run and are added at
//! spawn ([`super::presets::base_paths`]).

use std::path::PathBuf;

use serde_json::{json, Value};

/// One server's sandbox. `None` in a [`ServerSpec`](crate::config::ServerSpec) means no sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// The preset the fields below start from (`strict` when the config names none).
    pub preset: Option<String>,
    /// Readable (and executable) paths beyond what the preset gives.
    pub read: Vec<PathBuf>,
    /// Writable (and readable) paths beyond the server's private temporary folder.
    pub write: Vec<PathBuf>,
    pub network: NetworkPolicy,
    /// May the server start child processes at all.
    pub spawn: bool,
    /// Most tasks (processes and threads) in the server's tree.
    pub max_processes: Option<u32>,
    pub memory_bytes: Option<u64>,
    pub open_files: Option<u64>,
    pub cpu_seconds: Option<u64>,
    /// Start even where not all of it can be enforced (the level reached is reported).
    pub allow_weaker: bool,
}

/// Where a sandboxed server may connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkPolicy {
    /// Anywhere (the `network` preset).
    Any,
    /// Nowhere: no TCP connect or bind, no network but an unconnected loopback.
    None,
    /// TCP to these ports only (empty: any port); see docs/sandbox.md for what "loopback" holds.
    Loopback { ports: Vec<u16> },
    /// These hosts only, through the sidecar's egress proxy on 127.0.0.1.
    Allow { hosts: Vec<String> },
}

impl NetworkPolicy {
    /// The config spelling: `"none"`, `"any"`, `"loopback"`, `{"loopback": [..]}`, `{"allow": [..]}`.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Any => json!("any"),
            Self::None => json!("none"),
            Self::Loopback { ports } if ports.is_empty() => json!("loopback"),
            Self::Loopback { ports } => json!({ "loopback": ports }),
            Self::Allow { hosts } => json!({ "allow": hosts }),
        }
    }
}

impl SandboxPolicy {
    /// The policy in the config's own (camelCase) shape with every field present: what the launch
    /// digest binds, the trust request shows and `servers/status` echoes. `read` and `write` are
    /// sorted sets (their order means nothing); `null` is "no limit".
    pub fn to_json(&self) -> Value {
        let paths = |list: &[PathBuf]| {
            let mut v: Vec<String> = list
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        json!({
            "preset": self.preset,
            "read": paths(&self.read),
            "write": paths(&self.write),
            "network": self.network.to_json(),
            "processes": {"spawn": self.spawn, "max": self.max_processes},
            "limits": {
                "memoryMb": self.memory_bytes.map(|b| b / MIB),
                "openFiles": self.open_files,
                "cpuSeconds": self.cpu_seconds,
            },
            "allowWeaker": self.allow_weaker,
        })
    }
}

/// Bytes in a MiB (`memoryMb`).
pub const MIB: u64 = 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_spellings() {
        assert_eq!(NetworkPolicy::None.to_json(), json!("none"));
        assert_eq!(NetworkPolicy::Any.to_json(), json!("any"));
        assert_eq!(
            NetworkPolicy::Loopback { ports: vec![] }.to_json(),
            json!("loopback")
        );
        assert_eq!(
            NetworkPolicy::Loopback { ports: vec![80] }.to_json(),
            json!({"loopback": [80]})
        );
    }
}
