//! Diagnostics of configuration loading: every problem found in a file, each with the file, the JSON
//! path of the field, a stable kind and one sentence. A diagnostic never carries a value that could
//! be a secret (values of `env` and `headers` are never quoted).

use serde::Serialize;

/// How bad a problem is. `error`: the server it concerns was not loaded (or, without a server, the
/// whole file). `warning`: loaded anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Stable kinds of problems (the string form is part of the protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// The file cannot be read.
    Unreadable,
    /// The file is not valid JSON / TOML / YAML (`line`, `column` set).
    Syntax,
    /// No dialect recognises the file.
    UnknownDialect,
    WrongType,
    MissingField,
    /// A field no dialect defines; an error when it is close to a known one (probably a typo).
    UnknownField,
    /// A field that is recognised but has no effect in this sidecar.
    Ignored,
    /// `${VAR}` with no value and no default, or a `${input:ID}` the host did not provide.
    UnresolvedVariable,
    CommandNotFound,
    /// An executable given with a directory that resolves outside its plugin's folder.
    PathEscape,
    /// A value the file's format does not allow there (e.g. a plugin manifest `backend` that is not
    /// `type: mcp`, `transport: stdio`).
    Unsupported,
    /// A value that is out of range or contradicts another field.
    Invalid,
    /// Two servers with the same name.
    Duplicate,
    /// Past a bound of `limits` (`args`, `env`, a list, the bytes of one load, the answer's size).
    TooLarge,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    pub severity: Severity,
    pub kind: Kind,
    /// The file, when the configuration came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// JSON path of the field (`mcpServers.github.args[1]`); empty for the whole file.
    pub path: String,
    /// The server the problem concerns (its final, possibly prefixed, name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Diagnostic {
    pub fn error(kind: Kind, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            kind,
            file: None,
            path: path.into(),
            server: None,
            message: message.into(),
            line: None,
            column: None,
        }
    }

    pub fn warning(kind: Kind, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(kind, path, message)
        }
    }

    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn in_file(mut self, file: Option<&str>) -> Self {
        if self.file.is_none() {
            self.file = file.map(str::to_owned);
        }
        self
    }

    pub fn for_server(mut self, server: &str) -> Self {
        self.server = Some(server.to_owned());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `base.key`, or `base["key"]` when the key is not a plain identifier.
pub fn join(base: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match (base.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{base}.{key}"),
        (_, false) => format!("{base}[{}]", serde_json::Value::from(key)),
    }
}

/// `base[i]`.
pub fn index(base: &str, i: usize) -> String {
    format!("{base}[{i}]")
}

/// The closest of `known` to `key` when it is close enough to be a typo of it.
pub fn did_you_mean<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['_', '-'], "");
    let k = norm(key);
    known
        .iter()
        .map(|f| (edit_distance(&k, &norm(f)), *f))
        .filter(|(d, f)| *d <= 2.max(f.len() / 4) && *d < k.len().max(1))
        .min()
        .map(|(_, f)| f)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_hints() {
        assert_eq!(join("", "mcpServers"), "mcpServers");
        assert_eq!(join("mcpServers", "a.b"), "mcpServers[\"a.b\"]");
        assert_eq!(index("x.args", 2), "x.args[2]");
        assert_eq!(
            did_you_mean("comand", &["command", "args"]),
            Some("command")
        );
        assert_eq!(did_you_mean("argz", &["command", "args"]), Some("args"));
        assert_eq!(did_you_mean("description", &["command", "args"]), None);
    }
}
