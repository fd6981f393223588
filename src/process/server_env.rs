//! The environment a server starts with (a short allowlist of the sidecar's variables, what its
//! config inherits and sets) and the program its command names, as exec will find it on that
//! environment's PATH.

use std::path::Path;

use crate::config::ServerSpec;

/// Variables passed from the sidecar's environment to every server: enough to run programs, nothing
/// that is usually a secret. Anything else must be named in `inheritEnv` or set in `env`.
pub(crate) const BASE_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "SYSTEMROOT",
    "SystemRoot",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMDATA",
    "ProgramFiles",
];

/// The environment a server starts with.
pub(crate) fn child_env(spec: &ServerSpec) -> Vec<(String, String)> {
    let mut env: std::collections::BTreeMap<String, String> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            BASE_ENV.contains(&k.as_str()) || k.starts_with("LC_") || spec.inherit_env.contains(k)
        })
        .collect();
    env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.into_iter().collect()
}

/// The program a spawn runs, as exec will find it: a path with a `/` against `cwd`, a bare name on
/// the server's PATH (the command itself when it is not found: exec will fail and say so).
pub(super) fn resolve_program(spec: &ServerSpec, env: &[(String, String)]) -> std::path::PathBuf {
    let command = Path::new(&spec.command);
    if spec.command.contains('/') {
        return match &spec.cwd {
            Some(cwd) if command.is_relative() => cwd.join(command),
            _ => command.to_path_buf(),
        };
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    std::env::split_paths(path)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
        .unwrap_or_else(|| command.to_path_buf())
}
