//! The `sandbox` field of a stdio server's config, read into a [`SandboxPolicy`]: `false` (none),
//! `true` or a preset's name, or an object whose fields add to or override its preset (`strict`
//! unless it names one). Every key in camelCase and snake_case alike; errors name
//! `sandbox.<field>`. A limit given as `null` lifts the preset's.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use super::diagnostics::did_you_mean;
use super::invalid::invalid;
use super::strict::{self, Problem};
use crate::error::Result;
use crate::limits;
use crate::sandbox::policy::MIB;
use crate::sandbox::presets::{self, DEFAULT_PRESET, PRESETS};
use crate::sandbox::{NetworkPolicy, SandboxPolicy};

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawSandbox {
    #[serde(default, deserialize_with = "strict::present")]
    preset: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    read: Option<Vec<String>>,
    #[serde(default, deserialize_with = "strict::present")]
    write: Option<Vec<String>>,
    #[serde(default, deserialize_with = "strict::present")]
    network: Option<Value>,
    #[serde(default, deserialize_with = "strict::present")]
    processes: Option<Value>,
    #[serde(default, deserialize_with = "strict::present")]
    limits: Option<Value>,
    #[serde(default, alias = "allow_weaker", deserialize_with = "strict::present")]
    allow_weaker: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawProcesses {
    #[serde(default, deserialize_with = "strict::present")]
    spawn: Option<bool>,
    /// `null`: no bound.
    max: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawLimits {
    #[serde(alias = "memory_mb")]
    memory_mb: Option<u64>,
    #[serde(alias = "open_files")]
    open_files: Option<u64>,
    #[serde(alias = "cpu_seconds")]
    cpu_seconds: Option<u64>,
}

/// Bounds of the numbers a sandbox takes (a value outside is a typo, not a wish).
const MEMORY_MB: (u64, u64) = (16, 1 << 24);
const OPEN_FILES: (u64, u64) = (16, 1 << 20);
const CPU_SECONDS: (u64, u64) = (1, 1 << 31);
const MAX_PROCESSES: (u64, u64) = (1, 1 << 22);
/// Most hosts of `network.allow`.
const ALLOW_HOSTS_MAX: usize = 256;

/// The canonical (camelCase) names of the `sandbox` object's fields.
pub fn sandbox_field_names() -> Vec<&'static str> {
    strict::canonical_names::<RawSandbox>()
}

/// Reads the `sandbox` value; `None` for `false`.
pub fn parse_sandbox(value: &Value) -> Result<Option<SandboxPolicy>> {
    match value {
        Value::Bool(false) => Ok(None),
        Value::Bool(true) => preset(DEFAULT_PRESET, "sandbox").map(Some),
        Value::String(name) => preset(name, "sandbox").map(Some),
        Value::Object(_) => object(value).map(Some),
        _ => Err(invalid(
            "sandbox",
            "must be false, true, a preset's name or an object",
        )),
    }
}

fn preset(name: &str, field: &str) -> Result<SandboxPolicy> {
    presets::defaults(name).ok_or_else(|| {
        let hint = did_you_mean(name, PRESETS)
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        invalid(
            field,
            format!(
                "unknown preset {name:?}{hint}; the presets are {}",
                PRESETS.join(", ")
            ),
        )
    })
}

fn read<T: serde::de::DeserializeOwned>(value: &Value, within: &str) -> Result<strict::Read<T>> {
    strict::read_at::<T>(value, Some(within)).map_err(|p| match p {
        Problem::Invalid(e) => e,
        Problem::WrongType { top, at } => invalid(&format!("{within}.{at}"), expects(top)),
    })
}

fn object(value: &Value) -> Result<SandboxPolicy> {
    let raw = read::<RawSandbox>(value, "sandbox")?.value;
    let mut policy = preset(
        raw.preset.as_deref().unwrap_or(DEFAULT_PRESET),
        "sandbox.preset",
    )?;
    if let Some(list) = raw.read {
        policy.read = paths(list, "sandbox.read")?;
    }
    if let Some(list) = raw.write {
        policy.write = paths(list, "sandbox.write")?;
    }
    if let Some(network) = &raw.network {
        policy.network = network_policy(network)?;
    }
    if let Some(processes) = &raw.processes {
        let r = read::<RawProcesses>(processes, "sandbox.processes")?;
        if let Some(spawn) = r.value.spawn {
            policy.spawn = spawn;
        }
        if r.given.contains("max") {
            policy.max_processes =
                bounded(r.value.max, "sandbox.processes.max", MAX_PROCESSES)?.map(|n| n as u32);
        }
    }
    if let Some(limits) = &raw.limits {
        let r = read::<RawLimits>(limits, "sandbox.limits")?;
        if r.given.contains("memoryMb") {
            policy.memory_bytes =
                bounded(r.value.memory_mb, "sandbox.limits.memoryMb", MEMORY_MB)?.map(|m| m * MIB);
        }
        if r.given.contains("openFiles") {
            policy.open_files =
                bounded(r.value.open_files, "sandbox.limits.openFiles", OPEN_FILES)?;
        }
        if r.given.contains("cpuSeconds") {
            policy.cpu_seconds = bounded(
                r.value.cpu_seconds,
                "sandbox.limits.cpuSeconds",
                CPU_SECONDS,
            )?;
        }
    }
    if let Some(weaker) = raw.allow_weaker {
        policy.allow_weaker = weaker;
    }
    Ok(policy)
}

/// A number within `(min, max)`, `None` (no limit) when given as `null`.
fn bounded(value: Option<u64>, field: &str, (min, max): (u64, u64)) -> Result<Option<u64>> {
    match value {
        None => Ok(None),
        Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
        Some(_) => Err(invalid(
            field,
            format!("must be an integer in [{min}, {max}], or null for no limit"),
        )),
    }
}

/// Absolute paths (after the config's own `${…}` expansion), within the config's list bound.
fn paths(list: Vec<String>, field: &str) -> Result<Vec<PathBuf>> {
    if list.len() > limits::CONFIG_LIST_MAX {
        return Err(invalid(
            field,
            format!(
                "has {} items; the limit is {}",
                list.len(),
                limits::CONFIG_LIST_MAX
            ),
        ));
    }
    list.into_iter()
        .enumerate()
        .map(|(i, p)| {
            let path = PathBuf::from(&p);
            if p.contains('\0') || !path.is_absolute() {
                return Err(invalid(
                    &format!("{field}[{i}]"),
                    "must be an absolute path (`${HOME}/…` is expanded in config files)",
                ));
            }
            Ok(path)
        })
        .collect()
}

fn network_policy(value: &Value) -> Result<NetworkPolicy> {
    const EXPECTED: &str =
        "must be \"none\", \"loopback\", \"any\", {\"loopback\": [ports]} or {\"allow\": [hosts]}";
    let wrong = |field: &str| invalid(field, EXPECTED);
    match value {
        Value::String(s) => match s.as_str() {
            "none" => Ok(NetworkPolicy::None),
            "loopback" => Ok(NetworkPolicy::Loopback { ports: Vec::new() }),
            "any" => Ok(NetworkPolicy::Any),
            _ => Err(wrong("sandbox.network")),
        },
        Value::Object(map) if map.len() == 1 => {
            let (key, list) = map
                .iter()
                .next()
                .map(|(k, v)| (k.as_str(), v))
                .unwrap_or(("", value));
            let Some(items) = list.as_array() else {
                return Err(wrong(&format!("sandbox.network.{key}")));
            };
            match key {
                "loopback" => items
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        p.as_u64()
                            .and_then(|n| u16::try_from(n).ok())
                            .filter(|n| *n > 0)
                            .ok_or_else(|| {
                                invalid(
                                    &format!("sandbox.network.loopback[{i}]"),
                                    "must be a port number in [1, 65535]",
                                )
                            })
                    })
                    .collect::<Result<Vec<u16>>>()
                    .map(|mut ports| {
                        ports.sort_unstable();
                        ports.dedup();
                        NetworkPolicy::Loopback { ports }
                    }),
                "allow" => {
                    if items.len() > ALLOW_HOSTS_MAX {
                        return Err(invalid(
                            "sandbox.network.allow",
                            format!("has {} items; the limit is {ALLOW_HOSTS_MAX}", items.len()),
                        ));
                    }
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, h)| {
                            h.as_str()
                                .filter(|h| valid_host_pattern(h))
                                .map(str::to_owned)
                                .ok_or_else(|| {
                                    invalid(
                                        &format!("sandbox.network.allow[{i}]"),
                                        "must be a host name, `*.domain` or either with `:port`",
                                    )
                                })
                        })
                        .collect::<Result<Vec<String>>>()
                        .map(|mut hosts| {
                            hosts.sort();
                            hosts.dedup();
                            NetworkPolicy::Allow { hosts }
                        })
                }
                _ => Err(wrong("sandbox.network")),
            }
        }
        _ => Err(wrong("sandbox.network")),
    }
}

/// `host`, `*.domain`, either with `:port`: letters, digits, `-`, `.`, one leading `*.`.
fn valid_host_pattern(pattern: &str) -> bool {
    let (host, port) = match pattern.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (pattern, None),
    };
    let name = host.strip_prefix("*.").unwrap_or(host);
    let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok_and(|n| n > 0));
    port_ok
        && !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        && !name.starts_with('.')
        && !name.ends_with('.')
}

/// What a field of the sandbox object must be.
fn expects(field: &str) -> &'static str {
    match field {
        "preset" => "must be a preset's name",
        "read" | "write" => "must be an array of absolute paths",
        "processes" => "must be an object (spawn, max)",
        "limits" => "must be an object (memoryMb, openFiles, cpuSeconds)",
        "spawn" | "allowWeaker" => "must be true or false",
        "network" => "must be \"none\", \"loopback\", \"any\", {\"loopback\": [ports]} or {\"allow\": [hosts]}",
        _ => "must be an integer, or null for no limit",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(v: Value) -> SandboxPolicy {
        parse_sandbox(&v).unwrap().unwrap()
    }

    fn field(v: Value) -> String {
        parse_sandbox(&v).unwrap_err().details["field"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn forms() {
        assert_eq!(parse_sandbox(&json!(false)).unwrap(), None);
        assert_eq!(policy(json!(true)), presets::defaults("strict").unwrap());
        assert_eq!(
            policy(json!("strict")),
            presets::defaults("strict").unwrap()
        );
        assert_eq!(policy(json!({})), presets::defaults("strict").unwrap());
        assert_eq!(policy(json!("network")).network, NetworkPolicy::Any);
        let e = parse_sandbox(&json!("strikt")).unwrap_err();
        assert!(e.message.contains("did you mean `strict`"), "{}", e.message);
        assert_eq!(field(json!(1)), "sandbox");
    }

    #[test]
    fn fields_override_the_preset() {
        let p = policy(json!({
            "preset": "network", "read": ["/opt/x"], "write": ["/var/x"],
            "network": {"loopback": [9000, 8080, 9000]},
            "processes": {"spawn": false, "max": 8},
            "limits": {"memoryMb": 512, "openFiles": 256, "cpuSeconds": 600},
            "allowWeaker": true
        }));
        assert_eq!(p.preset.as_deref(), Some("network"));
        assert_eq!(p.read, vec![PathBuf::from("/opt/x")]);
        assert_eq!(p.write, vec![PathBuf::from("/var/x")]);
        assert_eq!(
            p.network,
            NetworkPolicy::Loopback {
                ports: vec![8080, 9000]
            }
        );
        assert!(!p.spawn && p.allow_weaker);
        assert_eq!(p.max_processes, Some(8));
        assert_eq!(p.memory_bytes, Some(512 * MIB));
        assert_eq!(p.open_files, Some(256));
        assert_eq!(p.cpu_seconds, Some(600));
        let lifted = policy(json!({"limits": {"memoryMb": null}, "processes": {"max": null}}));
        assert_eq!((lifted.memory_bytes, lifted.max_processes), (None, None));
        assert_eq!(lifted.open_files, Some(presets::STRICT_OPEN_FILES));
        assert_eq!(
            policy(json!({"network": {"allow": ["api.example.com", "*.github.com:443"]}})).network,
            NetworkPolicy::Allow {
                hosts: vec!["*.github.com:443".into(), "api.example.com".into()]
            }
        );
        assert_eq!(
            policy(json!({"network": "loopback"})).network,
            NetworkPolicy::Loopback { ports: vec![] }
        );
    }

    #[test]
    fn snake_case_reads_the_same() {
        let camel = policy(
            json!({"allowWeaker": true, "limits": {"memoryMb": 64, "openFiles": 64, "cpuSeconds": 5}}),
        );
        let snake = policy(
            json!({"allow_weaker": true, "limits": {"memory_mb": 64, "open_files": 64, "cpu_seconds": 5}}),
        );
        assert_eq!(camel, snake);
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(field(json!({"read": ["relative/x"]})), "sandbox.read[0]");
        assert_eq!(field(json!({"write": "/x"})), "sandbox.write");
        assert_eq!(field(json!({"reed": []})), "sandbox.reed");
        assert_eq!(field(json!({"preset": "none"})), "sandbox.preset");
        assert_eq!(field(json!({"network": "lan"})), "sandbox.network");
        assert_eq!(
            field(json!({"network": {"loopback": [0]}})),
            "sandbox.network.loopback[0]"
        );
        assert_eq!(
            field(json!({"network": {"allow": ["a b"]}})),
            "sandbox.network.allow[0]"
        );
        assert_eq!(
            field(json!({"limits": {"memoryMb": 1}})),
            "sandbox.limits.memoryMb"
        );
        assert_eq!(
            field(json!({"limits": {"memoryMb": "1G"}})),
            "sandbox.limits.memoryMb"
        );
        assert_eq!(
            field(json!({"limits": {"memory": 1}})),
            "sandbox.limits.memory"
        );
        assert_eq!(
            field(json!({"processes": {"spawn": 1}})),
            "sandbox.processes.spawn"
        );
        assert_eq!(
            field(json!({"allowWeaker": 1, "allow_weaker": true})),
            "sandbox.allow_weaker"
        );
    }
}
