//! Warnings for risky launch patterns, shown with a trust request: `sudo`, `rm -rf`, a download piped
//! into a shell, a shell running an inline script, a relative executable outside its plugin, a URL
//! at a link-local or cloud-metadata address, and an env file outside its config's folder.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

use url::{Host, Url};

use crate::config::dialects::env_file::EnvFile;
use crate::config::{package_in_command, paths};

/// Host names of cloud instance-metadata services (their addresses are checked as addresses).
const METADATA_NAMES: &[&str] = &["metadata.google.internal", "metadata.goog"];

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
    if let Some(found) = package_in_command(command, args) {
        let version = found
            .version
            .as_deref()
            .unwrap_or("whatever version is latest");
        out.push(format!(
            "unpinned package: `{}` ({version}) is fetched from the {} registry at each start; \
             `mcp-sidecar pin` prints a `package` block that pins it by hash",
            found.name,
            found.registry.as_str()
        ));
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

/// A sentence for `url` (the server's URL) and for every `http(s)://` URL inside an argument or an
/// env value that points at a link-local or cloud-metadata address: such a server can read the
/// machine's cloud credentials. A sentence names the argument's index or the variable, and the
/// host, never a value.
pub fn address_warnings<'a>(
    url: Option<&str>,
    args: &[String],
    env: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, text: &str| {
        if let Some(host) = metadata_host(text) {
            out.push(format!(
                "{what} points at a link-local or cloud-metadata address ({host})"
            ));
        }
    };
    if let Some(url) = url {
        check("the server URL", url);
    }
    for (i, arg) in args.iter().enumerate() {
        for url in embedded_urls(arg) {
            check(&format!("argument {i}"), url);
        }
    }
    for (name, value) in env {
        for url in embedded_urls(value) {
            check(&format!("env `{name}`"), url);
        }
    }
    out
}

/// A sentence for every env file read from outside the folder of the config that names it
/// (paths are compared once resolved, so `..` and symlinks cannot hide the way out).
pub fn env_file_warnings(files: &[EnvFile]) -> Vec<String> {
    files
        .iter()
        .filter_map(|f| {
            let dir = f.outside_config_dir()?;
            Some(format!(
                "reads env file `{}` outside the config's folder `{dir}`",
                f.path
            ))
        })
        .collect()
}

/// The host of `text` (a URL) when it is link-local or a cloud-metadata service.
fn metadata_host(text: &str) -> Option<String> {
    let url = Url::parse(text).ok()?;
    let risky = match url.host()? {
        Host::Ipv4(ip) => risky_v4(ip),
        Host::Ipv6(ip) => risky_v6(ip),
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            METADATA_NAMES.contains(&d.as_str())
        }
    };
    risky.then(|| url.host_str().unwrap_or_default().to_owned())
}

/// 169.254.0.0/16 (link-local, with AWS/Azure/GCP metadata at .169.254) and Alibaba's 100.100.100.200.
fn risky_v4(ip: Ipv4Addr) -> bool {
    ip.is_link_local() || ip == Ipv4Addr::new(100, 100, 100, 200)
}

/// fe80::/10, AWS's fd00:ec2::254, and an IPv4-mapped address that is risky as IPv4.
fn risky_v6(ip: Ipv6Addr) -> bool {
    (ip.segments()[0] & 0xffc0) == 0xfe80
        || ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)
        || ip.to_ipv4_mapped().is_some_and(risky_v4)
}

/// Every `http://` / `https://` URL inside `arg` (`--endpoint=http://…`), up to whitespace or quote.
fn embedded_urls(arg: &str) -> impl Iterator<Item = &str> {
    let lower = arg.to_ascii_lowercase();
    let starts: Vec<usize> = ["http://", "https://"]
        .iter()
        .flat_map(|p| lower.match_indices(p).map(|(i, _)| i).collect::<Vec<_>>())
        .collect();
    starts.into_iter().map(move |i| {
        let rest = &arg[i..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`'))
            .unwrap_or(rest.len());
        &rest[..end]
    })
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
        // A package fetched at each start is the one warning of an otherwise plain npx line.
        let npx = warnings(
            "npx",
            &s(&["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]),
            None,
            None,
        );
        assert_eq!(npx.len(), 1, "{npx:?}");
        assert!(npx[0].starts_with("unpinned package: `@modelcontextprotocol/server-filesystem`"));
        assert!(warnings("node", &s(&["server.js"]), None, None).is_empty());
        assert!(warnings("./bin/s", &[], Some(root), None).is_empty());
    }

    #[test]
    fn metadata_addresses() {
        let risky = [
            "http://169.254.169.254/latest/meta-data/",
            "http://169.254.1.2:8080/mcp",
            "http://2852039166/", // 169.254.169.254 as one number
            "http://[fe80::1]/mcp",
            "http://[febf::1]/",
            "http://[fd00:ec2::254]/",
            "http://[::ffff:169.254.169.254]/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.google.internal./",
            "http://100.100.100.200/latest/meta-data/",
        ];
        for url in risky {
            let w = address_warnings(Some(url), &[], []);
            assert_eq!(w.len(), 1, "{url}: {w:?}");
            assert!(w[0].contains("the server URL"), "{w:?}");
        }
        let fine = [
            "http://127.0.0.1:8080/mcp",
            "https://example.com/mcp",
            "http://169.253.1.1/",
            "http://[fec0::1]/",
            "http://100.100.100.201/",
            "not a url",
        ];
        for url in fine {
            assert!(address_warnings(Some(url), &[], []).is_empty(), "{url}");
        }
        let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let w = address_warnings(
            None,
            &args(&["--x", "--endpoint=http://169.254.169.254/latest"]),
            [],
        );
        assert_eq!(
            w,
            ["argument 1 points at a link-local or cloud-metadata address (169.254.169.254)"]
        );
        assert!(address_warnings(None, &args(&["https://example.com"]), []).is_empty());
        let w = address_warnings(
            None,
            &[],
            [
                ("ENDPOINT", "http://[fd00:ec2::254]/"),
                ("OK", "https://example.com"),
            ],
        );
        assert_eq!(
            w,
            ["env `ENDPOINT` points at a link-local or cloud-metadata address ([fd00:ec2::254])"]
        );
    }

    #[test]
    fn env_files_outside_the_config_folder() {
        let file = |path: &str, dir: Option<&str>| EnvFile {
            path: path.into(),
            config_dir: dir.map(str::to_owned),
            names: vec![],
            sha256: String::new(),
        };
        let w = env_file_warnings(&[
            file("/ws/.env", Some("/ws")),
            file("/ws/sub/a.env", Some("/ws")),
            file("/home/u/.aws/env", Some("/ws")),
            file("/ws2/.env", Some("/ws")),
            file("/anywhere/.env", None),
        ]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("/home/u/.aws/env") && w[1].contains("/ws2/.env"));
    }
}
