//! The named presets a config may start from (`strict`, `network`) and what each grants: the
//! limits and switches filled in when the config parses ([`defaults`]), and the paths added at
//! spawn, which depend on the program run ([`base_paths`]).

use std::path::{Path, PathBuf};

use super::policy::{NetworkPolicy, SandboxPolicy, MIB};

/// The preset a sandbox without one starts from (and what `sandbox: true` means).
pub const DEFAULT_PRESET: &str = "strict";

/// Every preset's name, for the config's "must be one of" message.
pub const PRESETS: &[&str] = &["strict", "network"];

/// Tasks a strict server's tree may hold.
pub const STRICT_MAX_PROCESSES: u32 = 64;
/// Memory a strict server's tree may use, in bytes.
pub const STRICT_MEMORY_BYTES: u64 = 1024 * MIB;
/// Descriptors a strict server's process may hold open.
pub const STRICT_OPEN_FILES: u64 = 1024;

/// The policy preset `name` gives before the config's own fields; `None` for an unknown name.
pub fn defaults(name: &str) -> Option<SandboxPolicy> {
    let network = match name {
        "strict" => NetworkPolicy::None,
        "network" => NetworkPolicy::Any,
        _ => return None,
    };
    Some(SandboxPolicy {
        preset: Some(name.to_owned()),
        read: Vec::new(),
        write: Vec::new(),
        network,
        spawn: true,
        max_processes: Some(STRICT_MAX_PROCESSES),
        memory_bytes: Some(STRICT_MEMORY_BYTES),
        open_files: Some(STRICT_OPEN_FILES),
        cpu_seconds: None,
        allow_weaker: false,
    })
}

/// System paths every preset lets a program read and execute: its runtime's libraries and the
/// few files a dynamic loader, TLS and time zones need.
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/localtime",
    "/etc/timezone",
    "/dev/null",
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
    "/dev/tty",
];

/// Read only when the network is not `none`: name resolution.
const NETWORK_READ: &[&str] = &[
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
];

/// Devices written as well as read (writing to /dev/null is how programs discard output).
const SYSTEM_WRITE: &[&str] = &["/dev/null", "/dev/tty"];

/// Files that mark the root of a program's package, looked for above its folder.
const PACKAGE_MARKERS: &[&str] = &[
    "package.json",
    "pyproject.toml",
    "pyvenv.cfg",
    "setup.py",
    "Cargo.toml",
    "go.mod",
];

/// How many folders above a program's own a package root is looked for.
const PACKAGE_ROOT_DEPTH: usize = 4;

/// What a preset grants beyond the config's own `read` and `write`, for one spawn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BasePaths {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
}

/// The paths the preset grants to `program` (the command as resolved on PATH) run with `args` in
/// `cwd`: the system's runtime, the program's folder, package root and install prefix (both
/// before and after symbolic links are followed), the folder and package root of the first argument naming an
/// existing file (the script an interpreter runs), and, writable, the server's private `tmp`.
/// Paths that do not exist are left out (a rule needs an open file).
pub fn base_paths(
    policy: &SandboxPolicy,
    program: &Path,
    args: &[String],
    cwd: Option<&Path>,
    tmp: &Path,
) -> BasePaths {
    let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
    if policy.network != NetworkPolicy::None {
        read.extend(NETWORK_READ.iter().map(PathBuf::from));
    }
    let mut installs = vec![program.to_path_buf()];
    let script = args.iter().find_map(|a| {
        let p = Path::new(a);
        let p = match cwd {
            Some(cwd) if p.is_relative() => cwd.join(p),
            _ => p.to_path_buf(),
        };
        p.is_file().then_some(p)
    });
    installs.extend(script);
    for file in installs {
        let resolved = std::fs::canonicalize(&file).ok();
        for f in std::iter::once(file).chain(resolved) {
            if let Some(folder) = f.parent().filter(|d| !d.as_os_str().is_empty()) {
                read.push(folder.to_path_buf());
                read.extend(package_root(folder));
                read.extend(install_prefix(folder));
            }
        }
    }
    let mut write: Vec<PathBuf> = SYSTEM_WRITE.iter().map(PathBuf::from).collect();
    write.push(tmp.to_path_buf());
    read.retain(|p| p.exists());
    write.retain(|p| p.exists());
    read.sort();
    read.dedup();
    write.sort();
    write.dedup();
    BasePaths { read, write }
}

/// The prefix of a runtime installed as `PREFIX/bin/program` (its libraries in `PREFIX/lib`: a
/// Python or Node built under pyenv, nvm, /opt…), never `/`, the home folder or `~/.local`.
fn install_prefix(folder: &Path) -> Option<PathBuf> {
    if folder.file_name()? != "bin" {
        return None;
    }
    let prefix = folder.parent()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let too_wide = prefix.parent().is_none()
        || home
            .as_deref()
            .is_some_and(|h| prefix == h || prefix == h.join(".local"));
    (!too_wide).then(|| prefix.to_path_buf())
}

/// The nearest folder at or above `folder` (at most [`PACKAGE_ROOT_DEPTH`] up) holding a package
/// marker, never `/` or the home folder itself (that would grant everything below).
fn package_root(folder: &Path) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    folder
        .ancestors()
        .take(PACKAGE_ROOT_DEPTH + 1)
        .take_while(|d| d.parent().is_some() && Some(*d) != home.as_deref())
        .find(|d| PACKAGE_MARKERS.iter().any(|m| d.join(m).exists()))
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_differ_in_network_only() {
        let strict = defaults("strict").unwrap();
        let network = defaults("network").unwrap();
        assert_eq!(strict.network, NetworkPolicy::None);
        assert_eq!(network.network, NetworkPolicy::Any);
        assert_eq!(
            SandboxPolicy {
                network: NetworkPolicy::None,
                preset: strict.preset.clone(),
                ..network
            },
            strict
        );
        assert_eq!(strict.memory_bytes, Some(1024 * MIB));
        assert_eq!(strict.max_processes, Some(64));
        assert!(strict.spawn && !strict.allow_weaker);
        assert!(defaults("lax").is_none());
        for name in PRESETS {
            assert!(defaults(name).is_some(), "{name}");
        }
    }

    #[test]
    fn base_paths_hold_the_program_its_package_and_the_script() {
        let root = std::env::temp_dir().join(format!("mcp-sidecar-presets-{}", std::process::id()));
        let pkg = root.join("pkg");
        std::fs::create_dir_all(pkg.join("dist")).unwrap();
        std::fs::write(pkg.join("package.json"), "{}").unwrap();
        std::fs::write(pkg.join("dist/server.js"), "").unwrap();
        let tmp = root.join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let strict = defaults("strict").unwrap();
        let base = base_paths(
            &strict,
            Path::new("/usr/bin/env"),
            &["-x".into(), "dist/server.js".into()],
            Some(&pkg),
            &tmp,
        );
        assert!(base.read.contains(&PathBuf::from("/usr")));
        assert!(base.read.contains(&pkg.join("dist")), "{:?}", base.read);
        assert!(base.read.contains(&pkg), "{:?}", base.read);
        assert!(!base.read.contains(&root), "{:?}", base.read);
        assert!(base.write.contains(&tmp));
        // A runtime's prefix (`PREFIX/bin/x`) is granted, never the root or the home folder.
        assert_eq!(
            install_prefix(Path::new("/opt/py/bin")),
            Some(PathBuf::from("/opt/py"))
        );
        assert_eq!(install_prefix(Path::new("/bin")), None);
        assert_eq!(install_prefix(Path::new("/opt/py/lib")), None);
        assert!(!base.read.iter().any(|p| p.ends_with("resolv.conf")));
        let network = defaults("network").unwrap();
        let base = base_paths(&network, Path::new("/usr/bin/env"), &[], None, &tmp);
        assert!(
            base.read.contains(&PathBuf::from("/etc/resolv.conf"))
                || !Path::new("/etc/resolv.conf").exists()
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
