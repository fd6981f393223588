//! The variables a confined server gets on top of its own, on every OS: TMPDIR, TMP and TEMP at
//! its private temporary folder where it has one, and for `network.allow` the egress proxy's
//! address in every proxy variable runtimes read, with `NO_PROXY` empty so that nothing bypasses it;
//! and (Unix) that private folder itself.

use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;

use super::policy::{NetworkPolicy, SandboxPolicy};

pub(crate) fn env(
    tmp: Option<&Path>,
    policy: &SandboxPolicy,
    egress_port: Option<u16>,
) -> Vec<(String, String)> {
    let mut env = Vec::new();
    if let Some(tmp) = tmp {
        let tmp = tmp.to_string_lossy();
        for k in ["TMPDIR", "TMP", "TEMP"] {
            env.push((k.to_owned(), tmp.clone().into_owned()));
        }
    }
    if let (NetworkPolicy::Allow { .. }, Some(port)) = (&policy.network, egress_port) {
        let proxy = format!("http://127.0.0.1:{port}");
        for k in [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            env.push((k.to_owned(), proxy.clone()));
        }
        env.push(("NO_PROXY".to_owned(), String::new()));
        env.push(("no_proxy".to_owned(), String::new()));
    }
    env
}

/// The server's private temporary folder: `<temp>/mcp-sidecar-<pid>-sandbox/server-<n>`, 0700.
#[cfg(unix)]
pub(crate) fn private_tmp(instance: u64) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir()
        .join(format!("mcp-sidecar-{}-sandbox", std::process::id()))
        .join(format!("server-{instance}"));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::presets::defaults;

    #[test]
    fn temp_at_the_private_folder_and_proxy_vars_at_the_proxy() {
        let allow = SandboxPolicy {
            network: NetworkPolicy::Allow {
                hosts: vec!["x.example".into()],
            },
            ..defaults("strict").unwrap()
        };
        let vars = env(Some(Path::new("/private/tmp/t")), &allow, Some(4100));
        assert!(vars.contains(&("TMPDIR".into(), "/private/tmp/t".into())));
        assert!(vars.contains(&("HTTPS_PROXY".into(), "http://127.0.0.1:4100".into())));
        assert!(vars.contains(&("NO_PROXY".into(), String::new())));
        let strict = defaults("strict").unwrap();
        assert!(env(None, &strict, None).is_empty());
        assert!(env(None, &allow, None).is_empty());
    }
}
