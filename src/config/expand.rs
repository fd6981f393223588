//! Variable expansion in config strings, per dialect: `${VAR}` and `${VAR:-default}` (Claude Code and
//! its plugins, whose `${CLAUDE_PLUGIN_ROOT}` is one more variable), `${env:NAME}` (Cursor, VS Code),
//! `${input:ID}` (VS Code: the value comes from the host through the protocol, never guessed), and
//! named editor variables such as `${workspaceFolder}`.
//!
//! Expansion never fails silently: a reference with no value and no default is reported (by name)
//! and the string is not used.
//!
//! Expansion also says which substitutions were secret — a `password` input, an input or a variable
//! whose name looks secret ([`looks_secret`]) — and their values, so that wherever the text lands
//! (args, URL, cwd, env, headers) the value is masked in every output.

use std::collections::{BTreeMap, BTreeSet};

/// Which `${…}` forms a dialect understands. Anything else inside `${…}` is left as written
/// (a dialect without expansion passes strings through untouched).
#[derive(Clone, Copy, Debug, Default)]
pub struct Syntax {
    /// `${VAR}` / `${VAR:-default}` from the environment (and the extra variables).
    pub plain: bool,
    /// `${env:NAME}`.
    pub env_prefix: bool,
    /// `${input:ID}`.
    pub input: bool,
}

/// Where values come from.
pub struct Vars<'a> {
    pub syntax: Syntax,
    /// The environment the expansion reads (the sidecar's own, or a fixed map in tests).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Named variables of the dialect (`CLAUDE_PLUGIN_ROOT`, `workspaceFolder`, …); they win over
    /// the environment.
    pub extra: BTreeMap<String, String>,
    /// `${input:ID}` values given by the host.
    pub inputs: &'a BTreeMap<String, String>,
    /// Inputs declared secret (`password: true`): a string that uses one is secret.
    pub secret_inputs: BTreeSet<String>,
}

/// A string after expansion.
#[derive(Debug, PartialEq, Eq)]
pub struct Expanded {
    pub text: String,
    /// It used a secret input or variable.
    pub secret: bool,
    /// The values of those secret substitutions (non-empty ones), to be masked wherever `text` goes.
    pub secret_values: Vec<String>,
}

/// Whether a variable, input or header name looks like it holds a secret (keys, tokens, passwords,
/// authorization, cookies, credentials, signatures).
pub fn looks_secret(name: &str) -> bool {
    let n: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    const WORDS: &[&str] = &[
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "auth",
        "cookie",
        "credential",
        "privatekey",
        "accesskey",
        "sessionkey",
        "signature",
    ];
    WORDS.iter().any(|w| n.contains(w)) || n.ends_with("key") || n.ends_with("pat")
}

/// Why a string could not be expanded.
#[derive(Debug, PartialEq, Eq)]
pub enum Unresolved {
    /// `${NAME}` or `${env:NAME}` with no value and no default.
    Variable(String),
    /// `${input:ID}` the host did not provide.
    Input(String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Variable(n) => write!(f, "variable `{n}` is not set and has no default (`${{{n}:-default}}`)"),
            Self::Input(id) => write!(f, "input `{id}` was not provided by the host (servers/load `inputs: {{\"{id}\": …}}`)"),
        }
    }
}

impl Vars<'_> {
    pub fn expand(&self, s: &str) -> Result<Expanded, Unresolved> {
        let mut out = String::with_capacity(s.len());
        let mut secret = false;
        let mut secret_values = Vec::new();
        let mut rest = s;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                out.push_str(&rest[start..]);
                return Ok(Expanded {
                    text: out,
                    secret,
                    secret_values,
                });
            };
            let inner = &after[..end];
            match self.resolve(inner)? {
                Some((value, is_secret)) => {
                    out.push_str(&value);
                    secret |= is_secret;
                    if is_secret && !value.is_empty() {
                        secret_values.push(value);
                    }
                }
                // Not a form this dialect expands: kept verbatim.
                None => out.push_str(&rest[start..start + 3 + end]),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(Expanded {
            text: out,
            secret,
            secret_values,
        })
    }

    fn resolve(&self, inner: &str) -> Result<Option<(String, bool)>, Unresolved> {
        if let Some(id) = inner.strip_prefix("input:") {
            if !self.syntax.input {
                return Ok(None);
            }
            return match self.inputs.get(id) {
                Some(v) => Ok(Some((
                    v.clone(),
                    self.secret_inputs.contains(id) || looks_secret(id),
                ))),
                None => Err(Unresolved::Input(id.to_owned())),
            };
        }
        if let Some(name) = inner.strip_prefix("env:") {
            if !self.syntax.env_prefix {
                return Ok(None);
            }
            return (self.env)(name)
                .map(|v| Some((v, looks_secret(name))))
                .ok_or_else(|| Unresolved::Variable(name.to_owned()));
        }
        if let Some(v) = self.extra.get(inner) {
            return Ok(Some((v.clone(), false)));
        }
        if !self.syntax.plain {
            return Ok(None);
        }
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let valid =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid {
            return Ok(None);
        }
        match ((self.env)(name), default) {
            (Some(v), _) => Ok(Some((v, looks_secret(name)))),
            (None, Some(d)) => Ok(Some((d.to_owned(), false))),
            (None, None) => Err(Unresolved::Variable(name.to_owned())),
        }
    }
}

/// `text` with each of `values` (4 bytes or more, longest first) replaced by `***`: for the few
/// messages the config layer words itself about an expanded string (a command not on PATH), before
/// the server's full set of secrets exists.
pub fn mask_values(text: &str, values: &[String]) -> String {
    let mut sorted: Vec<&String> = values.iter().filter(|v| v.len() >= 4).collect();
    sorted.sort_by_key(|v| std::cmp::Reverse(v.len()));
    sorted
        .into_iter()
        .fold(text.to_owned(), |out, v| out.replace(v.as_str(), "***"))
}

/// The one variable the sidecar defines itself: the folder holding its own executable, so that a
/// config can name a binary shipped beside it (`${MCP_SIDECAR_DIR}/mcp-fixture`) whichever build
/// or install the reader has. It wins over the environment: it says where this process runs from.
pub const SIDECAR_DIR_VAR: &str = "MCP_SIDECAR_DIR";

/// The sidecar's own environment, plus [`SIDECAR_DIR_VAR`], as an expansion source.
pub fn process_env(name: &str) -> Option<String> {
    if name == SIDECAR_DIR_VAR {
        if let Some(dir) = own_dir() {
            return Some(dir);
        }
    }
    std::env::var(name).ok()
}

/// The folder of the running executable, symlinks resolved (an installed link in `~/.local/bin`
/// names the folder the binary really sits in).
fn own_dir() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    exe.parent()?.to_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "EMPTY" => Some(String::new()),
            "API_TOKEN" => Some("tok-env".into()),
            _ => None,
        }
    }

    type Case<'a> = (Syntax, &'a str, Result<(&'a str, bool), Unresolved>);

    #[test]
    fn masks_given_values_longest_first() {
        let values = ["abcd".to_owned(), "abcdefgh".to_owned(), "ab".to_owned()];
        assert_eq!(mask_values("x abcdefgh abcd ab", &values), "x *** *** ab");
    }

    #[test]
    fn table() {
        let inputs: BTreeMap<String, String> = [("key".to_owned(), "s3cr3t".to_owned())].into();
        let all = Syntax {
            plain: true,
            env_prefix: true,
            input: true,
        };
        let none = Syntax::default();
        let cases: &[Case] = &[
            (all, "${HOME}/x", Ok(("/home/u/x", false))),
            (all, "${MISSING:-dflt}", Ok(("dflt", false))),
            (all, "${HOME:-dflt}", Ok(("/home/u", false))),
            (all, "${EMPTY:-dflt}", Ok(("", false))),
            (all, "${MISSING:-}", Ok(("", false))),
            (
                all,
                "${MISSING}",
                Err(Unresolved::Variable("MISSING".into())),
            ),
            (all, "${env:HOME}", Ok(("/home/u", false))),
            (all, "--t=${API_TOKEN}", Ok(("--t=tok-env", true))),
            (all, "${env:API_TOKEN}@h", Ok(("tok-env@h", true))),
            (all, "${env:NOPE}", Err(Unresolved::Variable("NOPE".into()))),
            (all, "Bearer ${input:key}", Ok(("Bearer s3cr3t", true))),
            (
                all,
                "${input:other}",
                Err(Unresolved::Input("other".into())),
            ),
            (all, "${ROOT}/bin", Ok(("/plug/bin", false))),
            (all, "a ${ unclosed", Ok(("a ${ unclosed", false))),
            (all, "${command:pick}", Ok(("${command:pick}", false))),
            (
                none,
                "${HOME} ${env:HOME} ${input:key}",
                Ok(("${HOME} ${env:HOME} ${input:key}", false)),
            ),
            (
                Syntax {
                    env_prefix: true,
                    ..none
                },
                "${HOME}-${env:HOME}",
                Ok(("${HOME}-/home/u", false)),
            ),
        ];
        for (syntax, input, want) in cases {
            let vars = Vars {
                syntax: *syntax,
                env: &env,
                extra: [("ROOT".to_owned(), "/plug".to_owned())].into(),
                inputs: &inputs,
                secret_inputs: ["key".to_owned()].into(),
            };
            let got = vars.expand(input);
            let want = want.as_ref().map(|(t, s)| Expanded {
                text: (*t).to_owned(),
                secret: *s,
                secret_values: match (*s, input.contains("input:key")) {
                    (false, _) => vec![],
                    (true, true) => vec!["s3cr3t".to_owned()],
                    (true, false) => vec!["tok-env".to_owned()],
                },
            });
            match (&got, want) {
                (Ok(g), Ok(w)) => assert_eq!(g, &w, "{input}"),
                (Err(g), Err(w)) => assert_eq!(g, w, "{input}"),
                _ => panic!("{input}: got {got:?}"),
            }
        }
    }
}
