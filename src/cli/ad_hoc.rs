//! Servers given on the command line instead of in a file: `--stdio "npx -y pkg"` (the command
//! line split by POSIX shell rules) and `--url https://…` (Streamable HTTP, or legacy SSE, as the
//! server answers), each named by `--name` or after what it runs (`server-memory`, the URL's host).
//! They become candidates as a config file's entries do, and every check a file's entry passes
//! (`servers/add`'s validation) still applies when they are added.

use serde_json::json;

use crate::config::dialects::Candidate;
use crate::config::Source;

/// One `--stdio` or `--url`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Given {
    Stdio(String),
    Url(String),
}

/// The candidates of `given`, named by `names` in order (the rest after what they run).
pub(crate) fn candidates(given: &[Given], names: &[String]) -> Result<Vec<Candidate>, String> {
    if names.len() > given.len() {
        return Err(format!(
            "{} `--name`s for {} `--stdio`/`--url` servers: give one name per server",
            names.len(),
            given.len()
        ));
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (i, g) in given.iter().enumerate() {
        let (config, flag, derived) = match g {
            Given::Stdio(line) => {
                let words = shlex::split(line)
                    .filter(|w| !w.is_empty())
                    .ok_or_else(|| format!("`--stdio {line:?}` is not a command line (an unclosed quote, or empty)"))?;
                let derived = name_of_command(&words);
                let config = json!({"command": words[0], "args": words[1..]});
                (config, "--stdio", derived)
            }
            Given::Url(url) => {
                let parsed =
                    url::Url::parse(url).map_err(|e| format!("`--url {url}` is not a URL: {e}"))?;
                let derived = parsed.host_str().map(name_of_host).unwrap_or_default();
                (json!({"url": url}), "--url", derived)
            }
        };
        let name = names.get(i).cloned().unwrap_or(derived);
        let name = if name.is_empty() {
            format!("server{}", i + 1)
        } else {
            name
        };
        if out.iter().any(|c| c.name == name) {
            return Err(format!(
                "two command-line servers are named `{name}`: give each a `--name`"
            ));
        }
        out.push(Candidate {
            name,
            config,
            source: Source::User,
            plugin_root: None,
            path: flag.to_owned(),
        });
    }
    Ok(out)
}

/// A name after what a command line runs: the package or program (`server-memory` of
/// `npx -y @modelcontextprotocol/server-memory@1.2`, `mcp-server-time` of `uvx mcp-server-time`),
/// kept to the characters a server name may hold.
fn name_of_command(words: &[String]) -> String {
    const RUNNERS: &[&str] = &[
        "npx", "uvx", "pipx", "bunx", "pnpx", "docker", "node", "python", "python3", "uv", "deno",
        "bun",
    ];
    let program = base(&words[0]);
    let word = if RUNNERS.contains(&program.as_str()) {
        // The runner's first word that is not a flag (nor `run`) names the package.
        words[1..]
            .iter()
            .find(|w| !w.starts_with('-') && *w != "run" && *w != "dlx")
            .map(|w| base(w))
            .unwrap_or(program)
    } else {
        program
    };
    // `pkg@1.2` → `pkg`; `server.py` → `server`.
    let word = word.split('@').next().unwrap_or_default();
    let word = word
        .strip_suffix(".py")
        .or_else(|| word.strip_suffix(".js"))
        .unwrap_or(word);
    clean(word)
}

/// The last path segment of a word (`@scope/pkg` → `pkg`, `/usr/bin/x` → `x`), keeping a leading
/// `@` version apart.
fn base(word: &str) -> String {
    let word = word.trim_start_matches('@');
    word.rsplit(['/', '\\']).next().unwrap_or(word).to_owned()
}

/// `mcp.example.com` → `mcp-example-com`.
fn name_of_host(host: &str) -> String {
    clean(host)
}

/// Only letters, digits, `-` and `_`; anything else becomes `-`.
fn clean(word: &str) -> String {
    let cleaned: String = word
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    cleaned.trim_matches('-').chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(line: &str) -> Candidate {
        candidates(&[Given::Stdio(line.into())], &[])
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_command_line_is_split_by_shell_rules_and_named_after_its_package() {
        let c = stdio("npx -y @modelcontextprotocol/server-memory@1.2");
        assert_eq!(c.name, "server-memory");
        assert_eq!(
            c.config,
            json!({"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@1.2"]})
        );
        assert_eq!(
            stdio("uvx mcp-server-time --local-timezone UTC").name,
            "mcp-server-time"
        );
        assert_eq!(
            stdio("/opt/bin/my_server 'a b'").config["args"],
            json!(["a b"])
        );
        assert_eq!(stdio("python3 ./tools/server.py").name, "server");
        assert!(candidates(&[Given::Stdio("npx 'unclosed".into())], &[]).is_err());
        assert!(candidates(&[Given::Stdio("  ".into())], &[]).is_err());
    }

    #[test]
    fn urls_are_named_after_their_host_and_names_are_given_in_order() {
        let given = [
            Given::Url("https://mcp.example.com/mcp".into()),
            Given::Stdio("x".into()),
        ];
        let c = candidates(&given, &[]).unwrap();
        assert_eq!(c[0].name, "mcp-example-com");
        assert_eq!(c[0].config, json!({"url": "https://mcp.example.com/mcp"}));
        let c = candidates(&given, &["remote".into()]).unwrap();
        assert_eq!((c[0].name.as_str(), c[1].name.as_str()), ("remote", "x"));
        assert!(candidates(&given, &["a".into(), "b".into(), "c".into()]).is_err());
        assert!(candidates(&[Given::Url("not a url".into())], &[]).is_err());
        let twice = [Given::Stdio("x".into()), Given::Stdio("x --y".into())];
        assert!(candidates(&twice, &[]).unwrap_err().contains("--name"));
    }
}
