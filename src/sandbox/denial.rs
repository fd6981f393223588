//! What a sandbox refused a server, read from its stderr tail (and from the memory limit's kill
//! count): the path, address or limit, and the config key that would allow it. A server that fails
//! under its sandbox is reported with this (SANDBOX_DENIED), and `doctor` explains it.

use crate::error::{Error, ErrorCode};

/// One refusal found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// What was refused: a path, an address, a limit.
    pub what: String,
    /// How the refusal showed (`EACCES`, `ECONNREFUSED`, `killed by the memory limit`…).
    pub sign: &'static str,
    /// The config key that would allow it.
    pub key: &'static str,
}

impl Denial {
    /// SANDBOX_DENIED for `server`, naming what was refused and the key that would allow it.
    pub fn to_error(&self, server: &str) -> Error {
        Error::new(
            ErrorCode::SandboxDenied,
            format!(
                "server `{server}` failed under its sandbox: {} was refused ({}); {} would allow it",
                self.what, self.sign, self.key
            ),
        )
        .with("server", server)
        .with("setting", self.key)
        .with("refused", self.what.as_str())
    }
}

/// Signs of a refusal, each with the config key that lifts it. Checked in order on each line, the
/// last lines first (the cause of an exit is usually printed last).
const SIGNS: &[(&[&str], &str, &str)] = &[
    (
        &["Too many open files", "EMFILE"],
        "EMFILE",
        "sandbox.limits.openFiles",
    ),
    (
        &[
            "Cannot allocate memory",
            "ENOMEM",
            "out of memory",
            "MemoryError",
        ],
        "ENOMEM",
        "sandbox.limits.memoryMb",
    ),
    (
        &[
            "Resource temporarily unavailable",
            "EAGAIN",
            "Cannot fork",
            "fork: retry",
        ],
        "EAGAIN",
        "sandbox.processes.max",
    ),
    (
        &[
            "Connection refused",
            "ECONNREFUSED",
            "Network is unreachable",
            "ENETUNREACH",
        ],
        "ECONNREFUSED",
        "sandbox.network",
    ),
    (
        &[
            "Permission denied",
            "EACCES",
            "Operation not permitted",
            "EPERM",
        ],
        "EACCES",
        "sandbox.read (or sandbox.write to write it)",
    ),
];

/// Most lines of the tail looked at (the last ones).
const LINES_LOOKED_AT: usize = 40;

/// The refusal a failed server's `stderr` tail (and `oom_kills`, from its memory cgroup) shows.
pub fn find(stderr: &str, oom_kills: u64) -> Option<Denial> {
    if oom_kills > 0 {
        return Some(Denial {
            what: "memory beyond sandbox.limits.memoryMb".into(),
            sign: "killed by the memory limit",
            key: "sandbox.limits.memoryMb",
        });
    }
    for line in stderr.lines().rev().take(LINES_LOOKED_AT) {
        for (needles, sign, key) in SIGNS {
            if !needles.iter().any(|n| line.contains(n)) {
                continue;
            }
            let what = match *sign {
                "ECONNREFUSED" => address(line).map(|a| format!("a connection to {a}")),
                "EACCES" => path(line, needles).map(|p| format!("access to {p}")),
                "EAGAIN" => Some("a new process beyond sandbox.processes.max".into()),
                "ENOMEM" => Some("memory beyond sandbox.limits.memoryMb".into()),
                _ => Some("a descriptor beyond sandbox.limits.openFiles".into()),
            };
            let Some(what) = what else { continue };
            let key = if *sign == "EAGAIN" && line.contains("spawn") {
                "sandbox.processes"
            } else {
                key
            };
            return Some(Denial { what, sign, key });
        }
    }
    None
}

/// The path a refusal is about: the first absolute path after the sign (`Permission denied:
/// '/etc/shadow'`, `EACCES: permission denied, open '/x'`), else the last one before it (`sh:
/// /x: Permission denied`). Quoted or bare, without trailing punctuation.
fn path(line: &str, needles: &[&str]) -> Option<String> {
    let at = needles.iter().filter_map(|n| line.find(n)).min()?;
    let paths = |text: &str| -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || "'\"`(),".contains(c))
            .filter(|w| w.starts_with('/') && w.len() > 1)
            .map(|w| w.trim_end_matches([':', '.', ';']).to_owned())
            .collect()
    };
    paths(&line[at..])
        .into_iter()
        .next()
        .or_else(|| paths(&line[..at]).pop())
}

/// The first `host:port` or IP address in `line`.
fn address(line: &str) -> Option<String> {
    line.split(|c: char| c.is_whitespace() || "'\"`(),".contains(c))
        .map(|w| w.trim_end_matches(['.', ';']))
        .find(|w| {
            let host_port = w.rsplit_once(':').is_some_and(|(h, p)| {
                !h.is_empty() && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())
            });
            host_port || w.parse::<std::net::IpAddr>().is_ok()
        })
        .map(str::to_owned)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn signs() {
        let d = find(
            "starting\nError: EACCES: permission denied, open '/home/u/.ssh/id_rsa'\n",
            0,
        )
        .unwrap();
        assert_eq!(d.what, "access to /home/u/.ssh/id_rsa");
        assert_eq!(d.key, "sandbox.read (or sandbox.write to write it)");
        let d = find(
            "PermissionError: [Errno 13] Permission denied: '/etc/shadow'",
            0,
        )
        .unwrap();
        assert_eq!(d.what, "access to /etc/shadow");
        let d = find("Error: connect ECONNREFUSED 127.0.0.1:9000\n", 0).unwrap();
        assert_eq!(
            (d.what.as_str(), d.key),
            ("a connection to 127.0.0.1:9000", "sandbox.network")
        );
        let d = find("bash: fork: retry: Resource temporarily unavailable", 0).unwrap();
        assert_eq!(d.key, "sandbox.processes.max");
        assert_eq!(find("", 1).unwrap().key, "sandbox.limits.memoryMb");
        assert_eq!(
            find("OSError: [Errno 24] Too many open files", 0)
                .unwrap()
                .key,
            "sandbox.limits.openFiles"
        );
        assert_eq!(find("all fine\nbye", 0), None);
        let d = find(
            "/bin/sh: line 12: /opt/tool/libexec/x: Permission denied",
            0,
        )
        .unwrap();
        assert_eq!(d.what, "access to /opt/tool/libexec/x");
        let e = find("open '/x/y': Permission denied", 0)
            .unwrap()
            .to_error("s");
        assert_eq!(e.code, ErrorCode::SandboxDenied);
        assert!(e.message.contains("/x/y"), "{}", e.message);
    }
}
