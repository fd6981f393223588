//! What a sandbox refused a server, read from its stderr tail (and from the memory limit's kill
//! count): the path, address or limit, and the config key that would allow it. A server that fails
//! under its sandbox is reported with this (SANDBOX_DENIED), and `doctor` explains it.
//!
//! Node does not say EACCES when the sandbox hides a module's folder: it reports the module as
//! missing (`ERR_MODULE_NOT_FOUND`, `Cannot find module`, `Cannot find package`). That is read as a
//! refusal only when the path it looked for lies outside every path the sandbox let it read (a
//! module missing from a readable folder is simply missing).

use std::path::{Path, PathBuf};

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

/// Node's words for a module it could not open, which is what a hidden folder looks like to it.
const MODULE_NOT_FOUND: &[&str] = &[
    "ERR_MODULE_NOT_FOUND",
    "Cannot find module",
    "Cannot find package",
];

/// The refusal a failed server's `stderr` tail (and `oom_kills`, from its memory cgroup) shows;
/// `readable`: the paths its sandbox let it read (and write), for telling a hidden module from a
/// missing one.
pub fn find(stderr: &str, oom_kills: u64, readable: &[PathBuf]) -> Option<Denial> {
    if oom_kills > 0 {
        return Some(Denial {
            what: "memory beyond sandbox.limits.memoryMb".into(),
            sign: "killed by the memory limit",
            key: "sandbox.limits.memoryMb",
        });
    }
    let lines: Vec<&str> = stderr.lines().collect();
    let first = lines.len().saturating_sub(LINES_LOOKED_AT);
    for (at, line) in lines.iter().enumerate().skip(first).rev() {
        if MODULE_NOT_FOUND.iter().any(|n| line.contains(n)) {
            if let Some(path) = hidden_module(line, &lines[at + 1..], readable) {
                return Some(Denial {
                    what: format!("access to {}", path.display()),
                    sign: "ERR_MODULE_NOT_FOUND",
                    key: "sandbox.read",
                });
            }
            continue;
        }
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

/// The path a `Cannot find module/package` line looked for, when it exists (the sidecar sees it)
/// but no readable path covers it: the module's own absolute path (`Cannot find module '/x/y.js'`,
/// or its nearest existing folder), else, for a package name, the first `node_modules/<name>`
/// above the importing file (`imported from /app/x.mjs`, or the `Require stack:` list after the
/// line) that exists and the sandbox did not let it read.
fn hidden_module(line: &str, after: &[&str], readable: &[PathBuf]) -> Option<PathBuf> {
    let covered = |p: &Path| readable.iter().any(|r| p.starts_with(r));
    let quoted = line.split('\'').nth(1)?;
    if quoted.starts_with('/') {
        // Node names the file it guessed (`…/node_modules/x/index.js` when it could not read the
        // package's `package.json`): within a package, the refused path is the nearest one that
        // exists, up to the package's folder; elsewhere the path itself.
        let path = Path::new(quoted);
        let package_folder = quoted.rfind("/node_modules/").and_then(|at| {
            let rest = &quoted[at + "/node_modules/".len()..];
            let parts = if rest.starts_with('@') { 2 } else { 1 };
            let name_len: usize = rest.split('/').take(parts).map(|p| p.len() + 1).sum();
            Some(Path::new(
                &quoted[..at + "/node_modules/".len() + name_len.checked_sub(1)?],
            ))
        });
        let existing = match package_folder {
            Some(folder) => path
                .ancestors()
                .take_while(|p| p.starts_with(folder))
                .find(|p| p.exists())?,
            None => path.exists().then_some(path)?,
        };
        return (!covered(existing)).then(|| existing.to_path_buf());
    }
    if quoted.starts_with('.') {
        return None;
    }
    let importer = match line.split_once(" imported from ") {
        Some((_, from)) => from.trim().trim_start_matches("file://").to_owned(),
        None => after
            .iter()
            .skip_while(|l| !l.starts_with("Require stack:"))
            .nth(1)?
            .trim()
            .strip_prefix("- ")?
            .to_owned(),
    };
    // `pkg/sub/path` and `@scope/pkg/sub`: the package's folder is the first one or two parts.
    let parts = if quoted.starts_with('@') { 2 } else { 1 };
    let package: PathBuf = quoted.split('/').take(parts).collect();
    Path::new(&importer)
        .ancestors()
        .skip(1)
        .map(|folder| folder.join("node_modules").join(&package))
        .find(|candidate| !covered(candidate) && candidate.exists())
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
mod tests {
    use super::*;

    #[test]
    fn signs() {
        let d = find(
            "starting\nError: EACCES: permission denied, open '/home/u/.ssh/id_rsa'\n",
            0,
            &[],
        )
        .unwrap();
        assert_eq!(d.what, "access to /home/u/.ssh/id_rsa");
        assert_eq!(d.key, "sandbox.read (or sandbox.write to write it)");
        let d = find(
            "PermissionError: [Errno 13] Permission denied: '/etc/shadow'",
            0,
            &[],
        )
        .unwrap();
        assert_eq!(d.what, "access to /etc/shadow");
        let d = find("Error: connect ECONNREFUSED 127.0.0.1:9000\n", 0, &[]).unwrap();
        assert_eq!(
            (d.what.as_str(), d.key),
            ("a connection to 127.0.0.1:9000", "sandbox.network")
        );
        let d = find(
            "bash: fork: retry: Resource temporarily unavailable",
            0,
            &[],
        )
        .unwrap();
        assert_eq!(d.key, "sandbox.processes.max");
        assert_eq!(find("", 1, &[]).unwrap().key, "sandbox.limits.memoryMb");
        assert_eq!(
            find("OSError: [Errno 24] Too many open files", 0, &[])
                .unwrap()
                .key,
            "sandbox.limits.openFiles"
        );
        assert_eq!(find("all fine\nbye", 0, &[]), None);
        let d = find(
            "/bin/sh: line 12: /opt/tool/libexec/x: Permission denied",
            0,
            &[],
        )
        .unwrap();
        assert_eq!(d.what, "access to /opt/tool/libexec/x");
        let e = find("open '/x/y': Permission denied", 0, &[])
            .unwrap()
            .to_error("s");
        assert_eq!(e.code, ErrorCode::SandboxDenied);
        assert!(e.message.contains("/x/y"), "{}", e.message);
    }

    /// Node 20's stderr for an ES module importing a package, an absolute module and (CommonJS)
    /// requiring a package, captured once; `{app}` is the importing script's folder.
    const ESM_PACKAGE: &str = "node:internal/modules/esm/resolve:873
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from {app}/dist/server.mjs
    at packageResolve (node:internal/modules/esm/resolve:873:9)
    at moduleResolve (node:internal/modules/esm/resolve:946:18)
    at ModuleJob._link (node:internal/modules/esm/module_job:168:49) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v20.20.2
";
    const ESM_ABSOLUTE: &str = "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '{app}/lib/index.js' imported from {app}/dist/server.mjs
    at finalizeResolution (node:internal/modules/esm/resolve:283:11) {
  code: 'ERR_MODULE_NOT_FOUND',
  url: 'file://{app}/lib/index.js'
}

Node.js v20.20.2
";
    /// Node 20 under the strict sandbox, importing a package whose `package.json` it could not
    /// read (its entry is under `exports`, so Node guessed `index.js`).
    const ESM_UNREADABLE_PACKAGE: &str = "node:internal/modules/esm/resolve:215
  const resolvedOption = FSLegacyMainResolve(packageJsonUrlString, packageConfig.main, baseStringified);
                         ^

Error: Cannot find package '{app}/node_modules/zod/index.js' imported from {app}/dist/server.mjs
    at legacyMainResolve (node:internal/modules/esm/resolve:215:26)
    at packageResolve (node:internal/modules/esm/resolve:860:14) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v20.20.2
";
    const CJS_PACKAGE: &str = "node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '@scope/tool/sub'
Require stack:
- {app}/dist/server.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Object.<anonymous> ({app}/dist/server.js:1:1) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '{app}/dist/server.js' ]
}

Node.js v20.20.2
";

    #[test]
    fn a_module_the_sandbox_hides_is_a_refusal_of_its_folder() {
        let app = std::env::temp_dir().join(format!("denial-node-{}", std::process::id()));
        for dir in [
            "dist",
            "lib",
            "node_modules/zod",
            "node_modules/@scope/tool",
        ] {
            std::fs::create_dir_all(app.join(dir)).unwrap();
        }
        std::fs::write(app.join("lib/index.js"), "").unwrap();
        let text = |t: &str| t.replace("{app}", &app.to_string_lossy());
        let dist = [app.join("dist")];
        // Only the server's own folder is readable: each module lies outside it.
        for (stderr, refused) in [
            (ESM_PACKAGE, app.join("node_modules/zod")),
            (ESM_ABSOLUTE, app.join("lib/index.js")),
            (CJS_PACKAGE, app.join("node_modules/@scope/tool")),
            (ESM_UNREADABLE_PACKAGE, app.join("node_modules/zod")),
        ] {
            let d = find(&text(stderr), 0, &dist).unwrap();
            assert_eq!(d.what, format!("access to {}", refused.display()));
            assert_eq!((d.sign, d.key), ("ERR_MODULE_NOT_FOUND", "sandbox.read"));
            let e = d.to_error("s");
            assert!(
                e.message.contains("sandbox.read would allow it"),
                "{}",
                e.message
            );
            // With the whole package readable, the module is just missing: no refusal.
            assert_eq!(find(&text(stderr), 0, std::slice::from_ref(&app)), None);
        }
        // A module that does not exist anywhere is not a refusal either.
        std::fs::remove_dir_all(&app).unwrap();
        for stderr in [
            ESM_PACKAGE,
            ESM_ABSOLUTE,
            CJS_PACKAGE,
            ESM_UNREADABLE_PACKAGE,
        ] {
            assert_eq!(find(&text(stderr), 0, &[]), None);
        }
    }
}
