//! Secrets: env values and headers marked secret, or whose names look like keys, tokens, passwords,
//! authorization, cookies or credentials. Their values stay in memory (the child's environment, the
//! request headers) and are replaced by `***` wherever text is shown: status, errors, logs,
//! diagnostics and the digest input.

use std::collections::BTreeSet;

/// What a secret becomes in any output.
pub const MASK: &str = "***";

/// Values shorter than this are not masked inside other text (they would mask random substrings);
/// they are still never printed on their own, since only names of env and headers are ever shown.
const MIN_MASKED_LEN: usize = 4;

/// Whether a variable or header name looks like it holds a secret.
pub fn looks_secret(name: &str) -> bool {
    let n: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
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

/// The secret values of one server, for masking.
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    values: Vec<String>,
}

impl Secrets {
    /// From `(name, value)` pairs: those marked (by name, in `marked`) or that look secret.
    pub fn collect<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        marked: &BTreeSet<String>,
    ) -> Self {
        let mut values: Vec<String> = pairs
            .into_iter()
            .filter(|(k, v)| (marked.contains(*k) || looks_secret(k)) && !v.is_empty())
            .flat_map(|(_, v)| {
                // `Bearer abc…`: the credential part alone may appear elsewhere too.
                let mut out = vec![v.to_owned()];
                if let Some((_, cred)) = v.split_once(' ') {
                    out.push(cred.trim().to_owned());
                }
                out
            })
            .filter(|v| v.len() >= MIN_MASKED_LEN)
            .collect();
        // Longest first, so a value containing another is masked whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Self { values }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every secret value replaced by `***`.
    pub fn mask(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), MASK);
            }
        }
        out
    }

    /// `e` with every secret value masked in its message and `data`.
    pub fn mask_error(&self, mut e: crate::error::Error) -> crate::error::Error {
        if !self.is_empty() {
            e.message = self.mask(&e.message);
            e.details.values_mut().for_each(|v| self.mask_json(v));
        }
        e
    }

    /// Masks every string inside a JSON value.
    pub fn mask_json(&self, value: &mut serde_json::Value) {
        if self.is_empty() {
            return;
        }
        match value {
            serde_json::Value::String(s) => *s = self.mask(s),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.mask_json(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.mask_json(v)),
            _ => {}
        }
    }
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
        let mut v = serde_json::json!({"a": ["x tok-123456"], "b": 1});
        s.mask_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": ["x ***"], "b": 1}));
    }
}
