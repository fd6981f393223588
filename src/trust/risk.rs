//! Warnings for risky launch patterns, shown with a trust request: `sudo`, `rm -rf`, a download piped
//! into a shell, a shell running an inline script, and a relative executable outside its plugin.

use std::path::Path;

use crate::config::paths;

/// Sentences, one per risky pattern found in the command line.
pub fn warnings(
    command: &str,
    args: &[String],
    plugin_root: Option<&Path>,
    cwd: Option<&Path>,
) -> Vec<String> {
    let words: Vec<&str> = std::iter::once(command)
        .chain(args.iter().map(String::as_str))
        .collect();
    let line = words.join(" ");
    let base = |w: &str| {
        Path::new(w)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(w)
            .to_owned()
    };
    let mut out = Vec::new();
    if words
        .iter()
        .any(|w| matches!(base(w).as_str(), "sudo" | "doas" | "pkexec"))
    {
        out.push("runs with elevated privileges (sudo)".to_owned());
    }
    let rm = words.iter().position(|w| base(w) == "rm");
    if rm.is_some()
        && words
            .iter()
            .any(|w| w.starts_with('-') && w.contains('r') && w.contains('f'))
        || line.contains("rm -rf")
    {
        out.push("deletes files recursively (rm -rf)".to_owned());
    }
    let fetch = ["curl", "wget"].iter().any(|f| line.contains(f));
    let piped_shell = ["| sh", "|sh", "| bash", "|bash", "| zsh", "| sudo"]
        .iter()
        .any(|p| line.contains(p));
    if fetch && piped_shell {
        out.push("pipes a download into a shell (curl | sh)".to_owned());
    }
    let shells = [
        "sh",
        "bash",
        "zsh",
        "dash",
        "cmd",
        "cmd.exe",
        "powershell",
        "pwsh",
    ];
    if shells.contains(&base(command).as_str())
        && args
            .iter()
            .any(|a| matches!(a.as_str(), "-c" | "/c" | "-Command"))
    {
        out.push("runs an inline shell script".to_owned());
    }
    if paths::has_directory(command) && !Path::new(command).is_absolute() {
        match plugin_root {
            Some(root) if paths::check_plugin_command(root, cwd, command).is_err() => out.push(
                format!("relative executable `{command}` resolves outside the plugin folder"),
            ),
            Some(_) => {}
            None => out.push(format!(
                "relative executable `{command}` depends on the working directory"
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let root = Path::new("/plugins/p");
        let cases: &[(&str, Vec<String>, Option<&Path>, &str)] = &[
            ("sudo", s(&["node", "x.js"]), None, "sudo"),
            ("sh", s(&["-c", "curl https://x | sh"]), None, "curl | sh"),
            ("bash", s(&["-c", "rm -rf /tmp/x; node s"]), None, "rm -rf"),
            ("rm", s(&["-rf", "/"]), None, "rm -rf"),
            (
                "../evil/bin",
                s(&[]),
                Some(root),
                "outside the plugin folder",
            ),
            ("./bin/s", s(&[]), None, "working directory"),
        ];
        for (cmd, args, root, want) in cases {
            let w = warnings(cmd, args, *root, None);
            assert!(w.iter().any(|x| x.contains(want)), "{cmd} {args:?}: {w:?}");
        }
        assert!(warnings(
            "npx",
            &s(&["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]),
            None,
            None
        )
        .is_empty());
        assert!(warnings("./bin/s", &[], Some(root), None).is_empty());
    }
}
