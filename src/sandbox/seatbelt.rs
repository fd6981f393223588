//! macOS: a server's sandbox as a Seatbelt profile (SBPL), and the `sandbox-exec` command line that
//! applies it.
//!
//! The profile denies by default and allows what the policy gives: reading (and executing, and
//! mapping as code) the read paths and the system paths any process needs, reading and writing the
//! write paths, the network the policy names (none; loopback, all ports or some; the egress proxy's
//! one port; anywhere), and starting processes only when the policy allows it. Metadata (`stat`) is
//! readable everywhere: path lookups need it, and it shows no file's content.
//!
//! It is applied by starting the server as `/usr/bin/sandbox-exec -p PROFILE -D READ_0=… -- PROGRAM
//! ARGS…`: `sandbox-exec` applies the profile to itself and execs the server, so the pid, the process
//! group and everything the supervisor knows stay the same. Not `sandbox_init` in the child between
//! fork and exec: that compiles the profile there, allocating in a child forked from a
//! multi-threaded process, where only async-signal-safe calls are sound. Paths are `-D` parameters,
//! named in the profile by `(param "READ_0")`: no path is quoted into the profile's text, so none
//! can change its meaning, and the text depends only on the policy's shape (the golden test).

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::policy::{NetworkPolicy, SandboxPolicy};

/// Where macOS keeps `sandbox-exec` (part of the base system since 10.5).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// What every process needs to read on macOS: the dynamic loader's shared cache and the system's
/// libraries and frameworks, the shells and tools in `/bin` and `/usr/bin`, time zones, and the
/// terminal and random devices.
const SYSTEM_READ_SUBPATHS: &[&str] = &[
    "/bin",
    "/usr",
    "/System",
    "/Library/Apple",
    "/private/var/db/dyld",
    "/private/var/db/timezone",
    "/dev/fd",
];
const SYSTEM_READ_LITERALS: &[&str] = &[
    "/",
    "/private/etc/localtime",
    "/dev/null",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];
/// Read only when the server has some network: name resolution and TLS roots.
const NETWORK_READ_LITERALS: &[&str] = &[
    "/private/etc/hosts",
    "/private/etc/resolv.conf",
    "/private/var/run/resolv.conf",
    "/private/etc/services",
    "/private/etc/protocols",
];
const NETWORK_READ_SUBPATHS: &[&str] = &["/private/etc/ssl"];
/// The system services every process may look up: user and group names, the notification center,
/// the unified log.
const SYSTEM_SERVICES: &[&str] = &[
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.notification_center",
    "com.apple.logd",
    "com.apple.diagnosticd",
];
/// The services a networked process needs: DNS (mDNSResponder), the network configuration, and
/// certificate trust.
const NETWORK_SERVICES: &[&str] = &[
    "com.apple.dnssd.service",
    "com.apple.SystemConfiguration.configd",
    "com.apple.SystemConfiguration.DNSConfiguration",
    "com.apple.trustd",
    "com.apple.trustd.agent",
];

/// A profile and the values of the parameters it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    pub text: String,
    /// `(name, path)` for each `-D name=path`.
    pub params: Vec<(String, PathBuf)>,
}

impl Profile {
    /// `sandbox-exec`'s arguments running `program args…` under this profile.
    pub fn command_args(
        &self,
        program: impl Into<OsString>,
        args: impl IntoIterator<Item = OsString>,
    ) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec!["-p".into(), self.text.clone().into()];
        for (name, path) in &self.params {
            let mut definition = OsString::from(format!("{name}="));
            definition.push(path.as_os_str());
            out.push("-D".into());
            out.push(definition);
        }
        out.push("--".into());
        out.push(program.into());
        out.extend(args);
        out
    }
}

/// Seatbelt matches the real path of each file (`/tmp` is `/private/tmp` to it): a path that exists
/// is given as its real path, one that does not with macOS's own links at the top replaced.
pub fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| private_prefix(path))
}

/// `/tmp`, `/var` and `/etc` are symbolic links into `/private` on macOS: a path below one, as
/// Seatbelt will see it.
fn private_prefix(path: &Path) -> PathBuf {
    for top in ["/tmp", "/var", "/etc"] {
        if let Ok(rest) = path.strip_prefix(top) {
            let private = Path::new("/private").join(&top[1..]);
            return if rest.as_os_str().is_empty() {
                private
            } else {
                private.join(rest)
            };
        }
    }
    path.to_path_buf()
}

/// The profile of `policy`. `proxy_port` is the egress proxy's port when the network policy is
/// `Allow` (the server may then connect to that loopback port only).
pub fn profile(policy: &SandboxPolicy, proxy_port: Option<u16>) -> Profile {
    let mut params = Vec::new();
    let mut text = String::from("(version 1)\n(deny default)\n");
    text.push_str("; the process itself\n");
    text.push_str("(allow process-info* (target self))\n");
    text.push_str("(allow signal (target same-sandbox))\n");
    text.push_str("(allow sysctl-read)\n");
    text.push_str("(allow file-read-metadata)\n");
    text.push_str(
        "(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))\n",
    );
    push_services(&mut text, SYSTEM_SERVICES);

    text.push_str("; starting processes\n");
    // Exec is what `sandbox-exec` itself does to start the server: always allowed, of what may be
    // read. Forking (and posix_spawn, which the kernel checks as a fork) only with `spawn`.
    text.push_str("(allow process-exec)\n");
    if policy.spawn {
        text.push_str("(allow process-fork)\n");
    }

    text.push_str("; reading: the system's paths and the policy's\n");
    let mut readable = String::new();
    for path in SYSTEM_READ_SUBPATHS {
        let _ = write!(readable, "\n  (subpath \"{path}\")");
    }
    for path in SYSTEM_READ_LITERALS {
        let _ = write!(readable, "\n  (literal \"{path}\")");
    }
    let networked = !matches!(policy.network, NetworkPolicy::None);
    if networked {
        for path in NETWORK_READ_SUBPATHS {
            let _ = write!(readable, "\n  (subpath \"{path}\")");
        }
        for path in NETWORK_READ_LITERALS {
            let _ = write!(readable, "\n  (literal \"{path}\")");
        }
    }
    for (i, path) in policy.read.iter().enumerate() {
        let name = format!("READ_{i}");
        let _ = write!(readable, "\n  (subpath (param \"{name}\"))");
        params.push((name, real(path)));
    }
    let _ = writeln!(text, "(allow file-read* file-map-executable{readable})");

    text.push_str("; writing (and reading): /dev/null and the policy's paths\n");
    let mut writable = String::from("\n  (literal \"/dev/null\")\n  (subpath \"/dev/fd\")");
    for (i, path) in policy.write.iter().enumerate() {
        let name = format!("WRITE_{i}");
        let _ = write!(writable, "\n  (subpath (param \"{name}\"))");
        params.push((name, real(path)));
    }
    let _ = writeln!(
        text,
        "(allow file-read* file-write* file-map-executable{writable})"
    );

    text.push_str(&network_rules(&policy.network, proxy_port));
    Profile { text, params }
}

fn push_services(text: &mut String, services: &[&str]) {
    text.push_str("(allow mach-lookup");
    for name in services {
        let _ = write!(text, "\n  (global-name \"{name}\")");
    }
    text.push_str(")\n");
}

/// The network part. Seatbelt's address filters know two hosts only, `*` and `localhost`, which is
/// all these rules need: an `Allow` list goes through the egress proxy on a loopback port.
fn network_rules(network: &NetworkPolicy, proxy_port: Option<u16>) -> String {
    let mut text = String::from("; network\n");
    let loopback = |text: &mut String, ports: &[u16]| {
        if ports.is_empty() {
            text.push_str("(allow network-outbound (remote ip \"localhost:*\"))\n");
            text.push_str("(allow network-bind network-inbound (local ip \"localhost:*\"))\n");
        } else {
            text.push_str("(allow network-outbound");
            for port in ports {
                let _ = write!(text, "\n  (remote ip \"localhost:{port}\")");
            }
            text.push_str(")\n");
        }
    };
    match network {
        NetworkPolicy::None => text.push_str("; none\n"),
        NetworkPolicy::Any => {
            text.push_str("(allow network*)\n");
            push_services(&mut text, NETWORK_SERVICES);
        }
        NetworkPolicy::Loopback { ports } => loopback(&mut text, ports),
        NetworkPolicy::Allow { .. } => match proxy_port {
            // Only the proxy: it resolves names itself, so no DNS service is needed here.
            Some(port) => loopback(&mut text, &[port]),
            None => text.push_str("; no egress proxy: none\n"),
        },
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::presets::defaults;

    /// The strict preset with one read and one write path of the config's.
    fn strict() -> SandboxPolicy {
        let mut policy = defaults("strict").unwrap();
        policy.read = vec![PathBuf::from("/opt/tool-that-is-not-here")];
        policy.write = vec![PathBuf::from("/var/data-that-is-not-here")];
        policy
    }

    /// The strict preset's whole profile: what a change to it must show in review.
    const STRICT: &str = r#"(version 1)
(deny default)
; the process itself
(allow process-info* (target self))
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow file-read-metadata)
(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.logd")
  (global-name "com.apple.diagnosticd"))
; starting processes
(allow process-exec)
(allow process-fork)
; reading: the system's paths and the policy's
(allow file-read* file-map-executable
  (subpath "/bin")
  (subpath "/usr")
  (subpath "/System")
  (subpath "/Library/Apple")
  (subpath "/private/var/db/dyld")
  (subpath "/private/var/db/timezone")
  (subpath "/dev/fd")
  (literal "/")
  (literal "/private/etc/localtime")
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/random")
  (literal "/dev/urandom")
  (literal "/dev/tty")
  (subpath (param "READ_0")))
; writing (and reading): /dev/null and the policy's paths
(allow file-read* file-write* file-map-executable
  (literal "/dev/null")
  (subpath "/dev/fd")
  (subpath (param "WRITE_0")))
; network
; none
"#;

    #[test]
    fn strict_profile_is_the_golden_one() {
        let profile = profile(&strict(), None);
        assert_eq!(profile.text, STRICT);
        assert_eq!(
            profile.params,
            [
                (
                    "READ_0".to_owned(),
                    PathBuf::from("/opt/tool-that-is-not-here")
                ),
                (
                    "WRITE_0".to_owned(),
                    PathBuf::from("/private/var/data-that-is-not-here")
                ),
            ]
        );
    }

    #[test]
    fn paths_are_parameters_never_profile_text() {
        let mut policy = strict();
        policy.read = vec![PathBuf::from("/tmp/a\")) (allow default) ((\"")];
        let profile = profile(&policy, None);
        assert!(!profile.text.contains("allow default"), "{}", profile.text);
        let args = profile.command_args("/bin/server", ["--x".into()]);
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "-p");
        // As Seatbelt sees it: `/tmp` is `/private/tmp` on macOS.
        assert_eq!(
            args[2..4],
            ["-D", "READ_0=/private/tmp/a\")) (allow default) ((\""]
        );
        assert_eq!(args[args.len() - 3..], ["--", "/bin/server", "--x"]);
    }

    #[test]
    fn hostile_paths_are_whole_arguments_and_never_reach_the_profile() {
        let hostile = [
            "/opt/a\"b",
            "/opt/x) (allow file-read* (subpath \"/\")) (",
            "/opt/line\n(allow default)",
            "/opt/semi; comment",
            "/opt/eq=sign",
            "/opt/#|block|#",
        ];
        let mut policy = strict();
        policy.read = hostile.iter().map(PathBuf::from).collect();
        policy.write = vec![PathBuf::from("/opt/w\")\n")];
        let profile = profile(&policy, None);
        // The text is the one every policy of this shape has: nothing of any path is in it.
        let mut plain = strict();
        plain.read = (0..hostile.len())
            .map(|i| PathBuf::from(format!("/opt/p{i}")))
            .collect();
        assert_eq!(profile.text, super::profile(&plain, None).text);
        for path in hostile {
            assert!(!profile.text.contains(path), "{path:?} in the profile");
        }
        let args: Vec<String> = profile
            .command_args("/bin/server", [])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        // Each path is one `-D NAME=PATH` argument, byte for byte (sandbox-exec splits at the
        // first `=`, and the names have none).
        for (i, path) in hostile.iter().enumerate() {
            let at = args
                .iter()
                .position(|a| *a == format!("READ_{i}={path}"))
                .unwrap_or_else(|| panic!("no -D for {path:?}: {args:?}"));
            assert_eq!(args[at - 1], "-D");
        }
        assert!(args.contains(&"WRITE_0=/opt/w\")\n".to_owned()));
        assert_eq!(args.len(), 2 + 2 * (hostile.len() + 1) + 2);
    }

    #[test]
    fn paths_are_given_as_seatbelt_sees_them() {
        assert_eq!(
            real(Path::new("/tmp/not-here-x/y")),
            PathBuf::from("/private/tmp/not-here-x/y")
        );
        assert_eq!(
            real(Path::new("/var/not-here-x")),
            PathBuf::from("/private/var/not-here-x")
        );
        assert_eq!(
            real(Path::new("/etc/not-here-x")),
            PathBuf::from("/private/etc/not-here-x")
        );
        assert_eq!(
            real(Path::new("/tmpx/not-here")),
            PathBuf::from("/tmpx/not-here")
        );
        assert_eq!(
            real(Path::new("/opt/not-here")),
            PathBuf::from("/opt/not-here")
        );
    }

    #[test]
    fn no_spawn_means_no_fork() {
        let mut policy = strict();
        policy.spawn = false;
        let text = profile(&policy, None).text;
        assert!(!text.contains("process-fork"), "{text}");
        assert!(text.contains("(allow process-exec)"));
    }

    #[test]
    fn network_rules_per_policy() {
        let rules = |network: NetworkPolicy, proxy: Option<u16>| {
            let mut policy = strict();
            policy.network = network;
            profile(&policy, proxy).text
        };
        let none = rules(NetworkPolicy::None, None);
        assert!(!none.contains("(allow network"), "{none}");
        assert!(!none.contains("resolv.conf"));
        let any = rules(NetworkPolicy::Any, None);
        assert!(any.contains("(allow network*)") && any.contains("com.apple.dnssd.service"));
        assert!(any.contains("(literal \"/private/etc/resolv.conf\")"));
        let loopback = rules(NetworkPolicy::Loopback { ports: vec![] }, None);
        assert!(loopback.contains("(allow network-outbound (remote ip \"localhost:*\"))"));
        assert!(!loopback.contains("(allow network*)"));
        let ports = rules(
            NetworkPolicy::Loopback {
                ports: vec![8080, 9000],
            },
            None,
        );
        assert!(ports.contains("(remote ip \"localhost:8080\")\n  (remote ip \"localhost:9000\"))"));
        assert!(!ports.contains("localhost:*"));
        let hosts = NetworkPolicy::Allow {
            hosts: vec!["api.example.com".into()],
        };
        let proxied = rules(hosts.clone(), Some(41000));
        assert!(
            proxied.contains("(remote ip \"localhost:41000\")"),
            "{proxied}"
        );
        assert!(!proxied.contains("api.example.com") && !proxied.contains("network*"));
        let unproxied = rules(hosts, None);
        assert!(!unproxied.contains("(allow network"), "{unproxied}");
    }
}
