//! The `WWW-Authenticate` challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1): the Bearer (or
//! DPoP) challenge's `resource_metadata`, `scope`, `error` and `error_description`. Parsed per
//! RFC 9110 §11.6.1 — challenges separated by commas, parameters `name=token` or
//! `name="quoted string"` — over every `WWW-Authenticate` header of the answer.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};

/// What a server's challenge asks for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    /// Whether the answer carried a Bearer (or DPoP) challenge at all.
    pub bearer: bool,
    /// Where the protected resource metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl Challenge {
    /// The challenge in an answer's headers (default when there is none).
    pub fn from_headers(headers: &HeaderMap) -> Self {
        headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(parse)
            .unwrap_or_default()
    }

    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// The challenged scopes, one by one.
    pub fn scopes(&self) -> Vec<String> {
        self.scope
            .as_deref()
            .map(|s| s.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

/// The Bearer (or DPoP) challenge of one header value, if it has one.
pub(super) fn parse(header: &str) -> Option<Challenge> {
    // The challenge being read: whether it is ours, and its parameters.
    let mut current: Option<(bool, Challenge)> = None;
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            break;
        }
        let (name, after) = token(rest);
        if name.is_empty() {
            // Not a token: skip one character (a stray quote, `=`, a non-ASCII byte).
            let skip = rest.chars().next().map_or(1, char::len_utf8);
            rest = &rest[skip..];
            continue;
        }
        let after_space = after.trim_start();
        match (&mut current, after_space.strip_prefix('=')) {
            // A parameter of the challenge being read (or a token68's padding, ignored alike).
            (Some((ours, challenge)), Some(value)) => {
                let (value, after_value) = param_value(value.trim_start());
                if *ours {
                    let slot = match name.to_ascii_lowercase().as_str() {
                        "resource_metadata" => Some(&mut challenge.resource_metadata),
                        "scope" => Some(&mut challenge.scope),
                        "error" => Some(&mut challenge.error),
                        "error_description" => Some(&mut challenge.error_description),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        slot.get_or_insert(value);
                    }
                }
                rest = after_value;
            }
            // A new challenge: the one before it ends.
            _ => {
                if let Some((true, done)) = current.take() {
                    return Some(done);
                }
                let ours = name.eq_ignore_ascii_case("bearer") || name.eq_ignore_ascii_case("dpop");
                let challenge = Challenge {
                    bearer: true,
                    ..Challenge::default()
                };
                current = Some((ours, challenge));
                rest = after;
            }
        }
    }
    match current {
        Some((true, done)) => Some(done),
        _ => None,
    }
}

/// A token (RFC 9110 `tchar`s) at the start of `s`, and the rest.
fn token(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)))
        .unwrap_or(s.len());
    s.split_at(end)
}

/// A parameter value (a quoted string, `\` escapes undone, or — leniently, as servers send URLs
/// unquoted — everything up to a comma or a space) and the rest.
fn param_value(s: &str) -> (String, &str) {
    let Some(quoted) = s.strip_prefix('"') else {
        let end = s
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(s.len());
        let (v, rest) = s.split_at(end);
        return (v.to_owned(), rest);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &quoted[i + 1..]),
            c => value.push(c),
        }
    }
    // Unterminated: take what there is.
    (value, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters() {
        let c = parse(
            r#"Bearer realm="mcp", error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\"""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.scopes(), vec!["files:read", "files:write"]);
        assert!(c.is_insufficient_scope());
        assert_eq!(c.error_description.as_deref(), Some(r#"needs "write""#));
    }

    #[test]
    fn unquoted_values_and_case() {
        let c = parse("bearer resource_metadata=https://h/x, scope=a").unwrap();
        assert_eq!(c.resource_metadata.as_deref(), Some("https://h/x"));
        assert_eq!(c.scope.as_deref(), Some("a"));
    }

    #[test]
    fn bearer_among_other_challenges() {
        let c = parse(r#"Basic realm="x", Bearer scope="s1", Negotiate abc=="#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("s1"));
        let c = parse(r#"Negotiate token68==, Bearer error="invalid_token""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert!(parse(r#"Basic realm="x""#).is_none());
        let bare = parse("Bearer").unwrap();
        assert!(bare.bearer && bare.scope.is_none() && bare.resource_metadata.is_none());
        assert!(!Challenge::default().bearer);
    }

    #[test]
    fn several_header_lines() {
        let mut h = HeaderMap::new();
        h.append(WWW_AUTHENTICATE, "Basic realm=\"x\"".parse().unwrap());
        h.append(
            WWW_AUTHENTICATE,
            "Bearer resource_metadata=\"http://127.0.0.1:1/m\""
                .parse()
                .unwrap(),
        );
        assert_eq!(
            Challenge::from_headers(&h).resource_metadata.as_deref(),
            Some("http://127.0.0.1:1/m")
        );
        assert_eq!(
            Challenge::from_headers(&HeaderMap::new()),
            Challenge::default()
        );
    }

    #[test]
    fn hostile_input_ends() {
        for s in [
            "Bearer \"",
            "Bearer a=\"unterminated",
            ",,,",
            "Bearer ===",
            "\u{1F600} Bearer x=y",
        ] {
            let _ = parse(s);
        }
    }
}
