//! Plugin path containment: an executable given with a directory inside a plugin must resolve inside
//! that plugin's folder. Checked lexically (`..` folded) and, when the file exists, again after
//! resolving symbolic links.

use std::path::{Component, Path, PathBuf};

/// `path` with `.` and `..` folded (without touching the file system).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `path` (absolute, or relative to `root`) stays inside `root`.
pub fn inside(root: &Path, path: &Path) -> bool {
    let root_n = normalize(root);
    let full = normalize(&root.join(path));
    if !full.starts_with(&root_n) {
        return false;
    }
    // A symbolic link inside the folder may still point out of it.
    match (std::fs::canonicalize(root), std::fs::canonicalize(&full)) {
        (Ok(r), Ok(p)) => p.starts_with(r),
        _ => true,
    }
}

/// Whether a command names a directory (as opposed to a bare name looked up on PATH).
pub fn has_directory(command: &str) -> bool {
    command.contains('/') || command.contains('\\')
}

/// For a plugin's server: `Err(sentence)` when a command with a directory resolves outside `root`
/// (relative commands are relative to the server's cwd, itself relative to the plugin root).
pub fn check_plugin_command(root: &Path, cwd: Option<&Path>, command: &str) -> Result<(), String> {
    if !has_directory(command) {
        return Ok(());
    }
    let base = cwd
        .map(|c| root.join(c))
        .unwrap_or_else(|| root.to_path_buf());
    let target = base.join(command);
    if inside(root, &target) {
        Ok(())
    } else {
        Err(format!(
            "executable `{command}` resolves to {} which is outside the plugin folder {}",
            normalize(&target).display(),
            root.display()
        ))
    }
}

/// Whether `command` is found on `path_var` (or names an existing file).
pub fn on_path(command: &str, path_var: Option<&str>) -> bool {
    if has_directory(command) {
        return true; // checked at spawn, relative to the cwd
    }
    path_var
        .unwrap_or("")
        .split(':')
        .filter(|d| !d.is_empty())
        .any(|dir| {
            let p = Path::new(dir).join(command);
            p.is_file() && is_executable(&p)
        })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let root = Path::new("/plugins/p");
        let cases = [
            ("server", None, true),
            ("./bin/server", None, true),
            ("bin/../bin/server", None, true),
            ("../other/server", None, false),
            ("./bin/../../other", None, false),
            ("/usr/bin/python", None, false),
            ("/plugins/p/bin/s", None, true),
            ("../s", Some("sub"), true),
            ("../../s", Some("sub"), false),
            ("s", Some("../x"), true), // bare names are looked up on PATH
        ];
        for (cmd, cwd, ok) in cases {
            assert_eq!(
                check_plugin_command(root, cwd.map(Path::new), cmd).is_ok(),
                ok,
                "{cmd} in {cwd:?}"
            );
        }
        assert!(on_path("sh", Some("/nonexistent:/bin:/usr/bin")));
        assert!(!on_path(
            "definitely-not-a-command-xyz",
            Some("/bin:/usr/bin")
        ));
    }
}
