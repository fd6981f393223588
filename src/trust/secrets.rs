//! Secrets: every value of a server's config that must never leave in plain text — env values and
//! headers marked secret (`secretEnv`, `secretHeaders`, `{value, secret: true}`) or whose names look
//! like keys, tokens, passwords, authorization, cookies or credentials; inherited variables
//! (`inheritEnv`) under such names or marked; secret expansions that landed in args, the URL or cwd
//! (`secretValues`, filled by the dialect readers); a URL's password and secret-looking query values.
//! Their values stay in memory (the child's environment, the request headers) and are replaced by
//! `***` wherever text is shown: status, errors, diagnostics, the trust request, tool results (by
//! default) and — through the process-wide set in [`crate::logging`] — every log line.

use std::collections::BTreeSet;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};

pub use crate::config::expand::looks_secret;
use crate::config::{Extras, ServerSpec};

/// What a secret becomes in any output.
pub use crate::logging::MASK;

/// Values shorter than this are not masked inside other text (they would mask random substrings);
/// they are still never printed on their own, since only names of env and headers are ever shown.
const MIN_MASKED_LEN: usize = 4;

/// Tool results go to a model provider and are full of ordinary words: only values this long are
/// masked there (PROTOCOL.md §7, `maskSecretsInResults`).
pub const MIN_RESULT_MASKED_LEN: usize = 8;

/// The secret values of one server, for masking. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct Secrets {
    /// Longest first (a value containing another is masked whole).
    values: Arc<[String]>,
    /// Matches every value at once; `None` when there is none.
    matcher: Option<Arc<AhoCorasick>>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} values)", self.values.len())
    }
}

impl Secrets {
    /// From `(name, value)` pairs: those marked (by name, in `marked`) or that look secret.
    pub fn collect<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        marked: &BTreeSet<String>,
    ) -> Self {
        Self::from_values(
            pairs
                .into_iter()
                .filter(|(k, _)| marked.contains(*k) || looks_secret(k))
                .map(|(_, v)| v.to_owned()),
        )
    }

    /// Every secret of a parsed server config. `env` reads the sidecar's own environment (for
    /// `inheritEnv`).
    pub fn for_server(
        spec: &ServerSpec,
        extras: &Extras,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let marked = &extras.secret_names;
        let secret = |name: &str| marked.contains(name) || looks_secret(name);
        let mut values: Vec<String> = Vec::new();
        values.extend(
            spec.env
                .iter()
                .filter(|(k, _)| secret(k))
                .map(|(_, v)| v.clone()),
        );
        values.extend(
            spec.inherit_env
                .iter()
                .filter(|k| secret(k))
                .filter_map(|k| env(k)),
        );
        values.extend(extras.secret_values.iter().cloned());
        if let Some(remote) = &spec.remote {
            values.extend(
                remote
                    .headers
                    .iter()
                    .filter(|h| h.secret || secret(&h.name))
                    .map(|h| h.value.clone()),
            );
            values.extend(url_secrets(&remote.url));
            values.extend(remote.oauth.iter().filter_map(|o| o.client_secret.clone()));
        }
        Self::from_values(values)
    }

    /// From the values themselves. They join the set every log line is masked with.
    pub fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        let mut values: Vec<String> = values
            .into_iter()
            .flat_map(|v| {
                // `Bearer abc…`: the credential part alone may appear elsewhere too.
                let cred = v
                    .split_once(' ')
                    .map(|(_, c)| c.trim().to_owned())
                    .filter(|c| !c.is_empty());
                std::iter::once(v).chain(cred)
            })
            .filter(|v| v.len() >= MIN_MASKED_LEN)
            .collect();
        values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        values.dedup();
        crate::logging::register_secrets(values.iter().map(String::as_str));
        Self::built(values)
    }

    fn built(values: Vec<String>) -> Self {
        let matcher = (!values.is_empty())
            .then(|| {
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&values)
                    .ok()
            })
            .flatten()
            .map(Arc::new);
        Self {
            values: values.into(),
            matcher,
        }
    }

    /// The values at least `min` bytes long (for tool results); empty when none is.
    pub fn at_least(&self, min: usize) -> Self {
        Self::built(
            self.values
                .iter()
                .filter(|v| v.len() >= min)
                .cloned()
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret value replaced by `***`.
    pub fn mask(&self, text: &str) -> String {
        match &self.matcher {
            Some(m) if m.is_match(text) => m.replace_all(text, &vec![MASK; self.values.len()]),
            _ => text.to_owned(),
        }
    }

    /// [`Self::mask`] for a cut excerpt (a stderr tail, one chunk of a stream): also masks a piece
    /// of a secret at its start (the excerpt began in the middle of one) or at its end (it stopped
    /// in the middle of one), when that piece is at least 4 bytes long.
    pub fn mask_excerpt(&self, text: &str) -> String {
        let mut out = self.mask(text);
        if self.is_empty() {
            return out;
        }
        for v in self.values.iter() {
            // The longest suffix of `v` that `out` starts with.
            if let Some(k) = (MIN_MASKED_LEN..v.len())
                .rev()
                .filter(|k| v.is_char_boundary(v.len() - k))
                .find(|k| out.starts_with(&v[v.len() - k..]))
            {
                out.replace_range(..k, MASK);
            }
            // The longest prefix of `v` that `out` ends with.
            if let Some(k) = (MIN_MASKED_LEN..v.len())
                .rev()
                .filter(|k| v.is_char_boundary(*k))
                .find(|k| out.ends_with(&v[..*k]))
            {
                let at = out.len() - k;
                out.replace_range(at.., MASK);
            }
        }
        out
    }

    /// `e` with every secret value masked in its message and `data` (its stderr tail as an
    /// excerpt: it may begin or end inside a secret).
    pub fn mask_error(&self, mut e: crate::error::Error) -> crate::error::Error {
        if !self.is_empty() {
            e.message = self.mask(&e.message);
            for (k, v) in e.details.iter_mut() {
                match v {
                    serde_json::Value::String(s) if k == "stderrTail" => {
                        *s = self.mask_excerpt(s);
                    }
                    _ => self.mask_json(v),
                }
            }
        }
        e
    }

    /// Masks every string inside a JSON value (object keys too: a server may echo a secret as one).
    pub fn mask_json(&self, value: &mut serde_json::Value) {
        let Some(m) = &self.matcher else {
            return;
        };
        match value {
            serde_json::Value::String(s) if m.is_match(s.as_str()) => *s = self.mask(s),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.mask_json(v)),
            serde_json::Value::Object(map) => {
                if map.keys().any(|k| m.is_match(k.as_str())) {
                    let old = std::mem::take(map);
                    *map = old
                        .into_iter()
                        .map(|(k, mut v)| {
                            self.mask_json(&mut v);
                            (self.mask(&k), v)
                        })
                        .collect();
                } else {
                    map.values_mut().for_each(|v| self.mask_json(v));
                }
            }
            _ => {}
        }
    }
}

/// A URL's password and the values of its secret-looking query parameters (`api_key=…`), both as
/// written (percent-encoded, as the URL is shown) and decoded.
fn url_secrets(url: &url::Url) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = url.password() {
        out.push(p.to_owned());
        out.extend(
            percent_decoded(p)
                .filter(|d| d != p)
                .map(|d| d.into_owned()),
        );
    }
    for pair in url.query().unwrap_or("").split('&') {
        if let Some((k, v)) = pair.split_once('=') {
            let name = percent_decoded(k).map_or_else(|| k.to_owned(), |d| d.into_owned());
            if looks_secret(&name) && !v.is_empty() {
                out.push(v.to_owned());
                if let Some(d) = percent_decoded(v) {
                    out.push(d.into_owned());
                }
            }
        }
    }
    out
}

fn percent_decoded(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| std::borrow::Cow::Owned(v.into_owned()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn names() {
        for (name, secret) in [
            ("GITHUB_TOKEN", true),
            ("OPENAI_API_KEY", true),
            ("Authorization", true),
            ("Cookie", true),
            ("DB_PASSWORD", true),
            ("AWS_SECRET_ACCESS_KEY", true),
            ("GOOGLE_APPLICATION_CREDENTIALS", true),
            ("X-Api-Key", true),
            ("GITHUB_PAT", true),
            ("api_key", true),
            ("LOG_LEVEL", false),
            ("PATH", false),
            ("PWD", false),
            ("HOME", false),
            ("Accept", false),
        ] {
            assert_eq!(looks_secret(name), secret, "{name}");
        }
    }

    #[test]
    fn masking() {
        let marked: BTreeSet<String> = ["PLAIN".to_owned()].into();
        let s = Secrets::collect(
            [
                ("TOKEN", "tok-123456"),
                ("PLAIN", "marked-value"),
                ("LEVEL", "debug"),
                ("Authorization", "Bearer abcdefgh"),
            ],
            &marked,
        );
        assert_eq!(
            s.mask("--token tok-123456 marked-value debug abcdefgh"),
            "--token *** *** debug ***"
        );
        let mut v = serde_json::json!({"a": ["x tok-123456"], "b": 1, "tok-123456": 2});
        s.mask_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": ["x ***"], "b": 1, "***": 2}));
        // Registered for the log too.
        assert_eq!(crate::logging::mask_registered("l tok-123456"), "l ***");
    }

    #[test]
    fn excerpts_cut_inside_a_secret() {
        let s = Secrets::from_values(["EXCERPT-secret-value-42".to_owned()]);
        assert_eq!(s.mask_excerpt("ret-value-42 rest"), "*** rest");
        assert_eq!(s.mask_excerpt("head EXCERPT-sec"), "head ***");
        assert_eq!(s.mask_excerpt("a EXCERPT-secret-value-42 b"), "a *** b");
        // Pieces shorter than 4 bytes are ordinary text.
        assert_eq!(s.mask_excerpt("42 and EX"), "42 and EX");
    }

    #[test]
    fn from_a_parsed_config() {
        let config = serde_json::json!({
            "url": "https://h.example/mcp?api_key=q-secret-1%2B2&page=2",
            "headers": {"X-Custom": {"value": "hdr-marked-1", "secret": true}, "Accept-Language": "en"},
            "secret_env": ["X-Custom"],
            "secretValues": ["expanded-secret-1"],
        });
        let (rest, extras) = crate::config::extras::split(&config).unwrap();
        let spec = ServerSpec::from_json(&rest).unwrap();
        let s = Secrets::for_server(&spec, &extras, &|_| None);
        assert_eq!(
            s.mask(spec.remote.as_ref().unwrap().url.as_str()),
            "https://h.example/mcp?api_key=***&page=2"
        );
        assert_eq!(
            s.mask("hdr-marked-1 q-secret-1+2 expanded-secret-1 en"),
            "*** *** *** en"
        );
        let stdio = serde_json::json!({
            "command": "x", "env": {"PLAIN": "marked-env-1", "API_TOKEN": "tok-env-1", "N": "visible"},
            "inheritEnv": ["SOME_SECRET_VAR", "HOME"], "secret_env": ["PLAIN"],
        });
        let (rest, extras) = crate::config::extras::split(&stdio).unwrap();
        let spec = ServerSpec::from_json(&rest).unwrap();
        let env = |k: &str| (k == "SOME_SECRET_VAR" || k == "HOME").then(|| format!("{k}-val"));
        let s = Secrets::for_server(&spec, &extras, &env);
        assert_eq!(
            s.mask("marked-env-1 tok-env-1 visible SOME_SECRET_VAR-val HOME-val"),
            "*** *** visible *** HOME-val"
        );
    }
}
