//! Secrets: every value of a server's config that must never leave in plain text — env values and
//! headers marked secret (`secretEnv`, `secretHeaders`, `{value, secret: true}`) or whose names look
//! like keys, tokens, passwords, authorization, cookies or credentials; inherited variables
//! (`inheritEnv`) under such names or marked; secret expansions that landed in args, the URL or cwd
//! (`secretValues`, filled by the dialect readers); a URL's password and every query value but those
//! of a short list of parameters that carry none ([`SHOWN_QUERY_PARAMETERS`]). Each value is masked
//! in every spelling text shows it in: as it is, and JSON-escaped (a `"` or `\` in it).
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
            .flat_map(spellings)
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
                self.mask_member(k, v);
            }
        }
        e
    }

    /// Masks every string inside a JSON value (object keys too: a server may echo a secret as one).
    /// A `stderrTail` string is an excerpt ([`Self::mask_excerpt`]) wherever it is — in a status,
    /// in `lastError.data`, in a notification carrying either — so a secret cut by the tail is
    /// masked in every copy.
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
                            self.mask_member(&k, &mut v);
                            (self.mask(&k), v)
                        })
                        .collect();
                } else {
                    map.iter_mut().for_each(|(k, v)| self.mask_member(k, v));
                }
            }
            _ => {}
        }
    }

    /// One member of an object: a stderr tail as an excerpt, anything else by [`Self::mask_json`].
    fn mask_member(&self, key: &str, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) if key == STDERR_TAIL => *s = self.mask_excerpt(s),
            // A message's start, cut at its end (marked `…`): it may stop inside a secret.
            serde_json::Value::String(s) if key == EXCERPT => {
                *s = match s.strip_suffix('…') {
                    Some(cut) => format!("{}…", self.mask_excerpt(cut)),
                    None => self.mask(s),
                }
            }
            _ => self.mask_json(value),
        }
    }
}

/// The member of an error's data (and of a status) that holds a cut stderr excerpt.
const STDERR_TAIL: &str = "stderrTail";

/// The member of an error's data that holds the start of a server's message that is not JSON-RPC.
const EXCERPT: &str = "excerpt";

/// Query parameters whose values are shown: they choose a page, a format, a language or a version,
/// and carry no credential. Every other query value of a server's URL is a secret (masked in the
/// trust request, status, `servers/list`, errors and logs), whatever its name — `sig` (Azure SAS),
/// `code`, `session`, `jwt`, or a name nobody foresaw. Compared in lowercase.
pub const SHOWN_QUERY_PARAMETERS: &[&str] = &[
    "api-version",
    "api_version",
    "format",
    "lang",
    "language",
    "limit",
    "locale",
    "offset",
    "page",
    "per_page",
    "readonly",
    "read_only",
    "region",
    "transport",
    "v",
    "version",
];

/// A URL's password and the value of every query parameter not in [`SHOWN_QUERY_PARAMETERS`],
/// both as written (percent-encoded, as the URL is shown) and decoded.
pub fn url_secrets(url: &url::Url) -> Vec<String> {
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
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let name = percent_decoded(k).map_or_else(|| k.to_owned(), |d| d.into_owned());
        if !v.is_empty() && !SHOWN_QUERY_PARAMETERS.contains(&name.to_ascii_lowercase().as_str()) {
            out.push(v.to_owned());
            if let Some(d) = percent_decoded(v) {
                out.push(d.into_owned());
            }
        }
    }
    out
}

/// `v` as it is and as text that quotes it shows it: JSON-escaped (a `"` or `\` in a secret
/// becomes `\"` or `\\` in a JSON log line, a server's JSON on stderr, an HTTP error body), and
/// escaped once more (such text quoted inside JSON again); and, for a value of many lines (a PEM
/// key), each of its lines, since stderr is logged and cut into tails line by line. Only the
/// spellings that differ.
fn spellings(v: String) -> Vec<String> {
    let once = json_escaped(&v);
    let twice = once.as_deref().and_then(json_escaped);
    let lines: Vec<String> = if v.contains('\n') {
        v.lines()
            .map(|l| l.trim_end_matches('\r').to_owned())
            .collect()
    } else {
        Vec::new()
    };
    std::iter::once(v)
        .chain(once)
        .chain(twice)
        .chain(lines)
        .collect()
}

/// `s` as it appears between the quotes of a JSON string, when that differs from `s`.
fn json_escaped(s: &str) -> Option<String> {
    let quoted = serde_json::to_string(s).ok()?;
    let inner = &quoted[1..quoted.len() - 1];
    (inner != s).then(|| inner.to_owned())
}

fn percent_decoded(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| std::borrow::Cow::Owned(v.into_owned()))
}

#[cfg(test)]
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

    /// An error's `excerpt` (a message's start, `…` when cut) may stop inside a secret.
    #[test]
    fn an_excerpt_cut_inside_a_secret_is_masked() {
        let s = Secrets::from_values(["EXCERPT-secret-value-42".to_owned()]);
        let e = crate::error::Error::new(crate::error::ErrorCode::ProtocolError, "broken")
            .with("excerpt", "<html>EXCERPT-sec…");
        assert_eq!(s.mask_error(e).details["excerpt"], "<html>***…");
        let e = crate::error::Error::new(crate::error::ErrorCode::ProtocolError, "broken")
            .with("excerpt", "a EXCERPT-secret-value-42 EXCE");
        assert_eq!(s.mask_error(e).details["excerpt"], "a *** EXCE");
    }

    /// A secret with `"` or `\` is masked as it is and as JSON text shows it (once and twice
    /// escaped), in masks and in the log's net.
    #[test]
    fn escaped_spellings_are_masked_too() {
        let secret = r#"quo"te\back-1"#;
        let s = Secrets::from_values([secret.to_owned()]);
        assert_eq!(s.mask(&format!("raw {secret}")), "raw ***");
        assert_eq!(s.mask(r#"json "quo\"te\\back-1""#), r#"json "***""#);
        assert_eq!(s.mask(r#"twice quo\\\"te\\\\back-1"#), "twice ***");
        let line = serde_json::json!({"message": format!("token {secret} seen")}).to_string();
        assert!(line.contains(r#"quo\"te"#), "{line}");
        assert_eq!(
            crate::logging::mask_registered(&line),
            r#"{"message":"token *** seen"}"#
        );
    }

    /// Each line of a secret of many lines is a secret of its own.
    #[test]
    fn each_line_of_a_long_secret_is_masked() {
        let s = Secrets::from_values(["-----BEGIN KEY-----\r\nline-one-1234\nab\n".to_owned()]);
        assert_eq!(s.mask("tail: line-one-1234 ab"), "tail: *** ab");
    }

    /// Every query value of a server's URL is secret but those of the shown parameters.
    #[test]
    fn query_values_are_secret_unless_shown() {
        let url = url::Url::parse(
            "https://h.example/mcp?sig=sas-sig-1&pwd=pwd-val-1&code=code-val-1&session=sess-val-1\
             &whatever=what-val-1&page=page-2&api-version=2024-01-01&flag",
        )
        .unwrap();
        let s = Secrets::from_values(url_secrets(&url));
        assert_eq!(
            s.mask(url.as_str()),
            "https://h.example/mcp?sig=***&pwd=***&code=***&session=***&whatever=***\
             &page=page-2&api-version=2024-01-01&flag"
        );
    }

    /// A stderr tail cut inside a secret is an excerpt in every copy: in a status, in an error's
    /// data (`lastError`), in a notification that carries either.
    #[test]
    fn stderr_tails_are_excerpts_wherever_they_are() {
        let s = Secrets::from_values(["TAIL-secret-value-42".to_owned()]);
        let mut v = serde_json::json!({"params": {"status": {
            "stderrTail": "ecret-value-42 then more",
            "lastError": {"data": {"stderrTail": "log TAIL-sec"}, "message": "TAIL-secret-value-42"},
        }}});
        s.mask_json(&mut v);
        let status = &v["params"]["status"];
        assert_eq!(status["stderrTail"], "*** then more");
        assert_eq!(status["lastError"]["data"]["stderrTail"], "log ***");
        assert_eq!(status["lastError"]["message"], "***");
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
