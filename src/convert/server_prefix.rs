//! The prefix a server's tools (and prompts) are exposed under, from the server's name as people
//! write it. Claude Desktop, Cursor and VS Code accept any key as a server's name ("Time Server",
//! "my.server", "Résumé tools"); model providers accept only `[A-Za-z0-9_-]` in a tool's name.
//!
//! The rule, a pure function of the name alone (so it is the same across restarts, whatever else
//! is configured and in whatever order, and adding a server never renames another's tools):
//! - a name that is already 1-64 characters of `[A-Za-z0-9_-]` is its own prefix (nobody's tool
//!   names change);
//! - any other name becomes a slug — ASCII letters lowercased, digits, `_` and `-` kept, every run
//!   of other characters one `_`, no `_` at either end, at most [`SLUG_MAX_CHARS`] characters,
//!   `server` when nothing is left — then `_` and the first [`HASH_HEX`] hex digits of the name's
//!   sha256: "Time Server" → `time_server_` + 6 hex. The hash keeps apart names that slug alike
//!   ("my.server", "my server", "My Server") and keeps a slug from taking the name of a server
//!   whose name is valid as it is (`my_server`).
//!
//! The exposed name is then made from the template as before (`mcp__{server}__{tool}`), and any
//! collision left among tools is resolved there (`names`).

use std::borrow::Cow;

use sha2::{Digest, Sha256};

/// A name at most this long, of `[A-Za-z0-9_-]`, is its own prefix.
pub const PLAIN_NAME_MAX_BYTES: usize = 64;
/// The longest slug kept before the hash (so that `mcp__` + prefix + `__` leaves room for a tool
/// within 64 characters).
pub const SLUG_MAX_CHARS: usize = 24;
/// Hex digits of the name's hash after the slug.
pub const HASH_HEX: usize = 6;

/// The prefix of `name` (see the module doc); borrowed when it is the name itself.
pub fn server_prefix(name: &str) -> Cow<'_, str> {
    if is_plain(name) {
        return Cow::Borrowed(name);
    }
    let mut slug = String::new();
    let mut pending_gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            if pending_gap && !slug.is_empty() && !slug.ends_with('_') {
                slug.push('_');
            }
            pending_gap = false;
            slug.push(c.to_ascii_lowercase());
        } else {
            pending_gap = true;
        }
    }
    let mut slug: String = slug
        .trim_matches('_')
        .chars()
        .take(SLUG_MAX_CHARS)
        .collect();
    while slug.ends_with('_') {
        slug.pop();
    }
    if slug.is_empty() {
        slug.push_str("server");
    }
    let hash = hex::encode(Sha256::digest(name.as_bytes()));
    Cow::Owned(format!("{slug}_{}", &hash[..HASH_HEX]))
}

/// Whether `name` is its own prefix: what server names could be before any other was accepted.
pub fn is_plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= PLAIN_NAME_MAX_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash6(name: &str) -> String {
        hex::encode(Sha256::digest(name.as_bytes()))[..HASH_HEX].to_owned()
    }

    #[test]
    fn plain_names_are_their_own_prefix() {
        for name in [
            "github",
            "my_server",
            "My-Server2",
            "_x",
            "9lives",
            &"a".repeat(64),
        ] {
            assert_eq!(server_prefix(name), name);
            assert!(matches!(server_prefix(name), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn other_names_are_a_slug_and_a_hash_of_the_name() {
        assert_eq!(
            server_prefix("Time Server"),
            format!("time_server_{}", hash6("Time Server"))
        );
        assert_eq!(
            server_prefix("my.server"),
            format!("my_server_{}", hash6("my.server"))
        );
        assert_eq!(
            server_prefix("  GitHub (work) / PRs  "),
            format!("github_work_prs_{}", hash6("  GitHub (work) / PRs  "))
        );
        assert_eq!(
            server_prefix("Résumé tools"),
            format!("r_sum_tools_{}", hash6("Résumé tools"))
        );
        assert_eq!(
            server_prefix("日本語"),
            format!("server_{}", hash6("日本語"))
        );
        assert_eq!(
            server_prefix(&"b".repeat(65)),
            format!("{}_{}", "b".repeat(SLUG_MAX_CHARS), hash6(&"b".repeat(65)))
        );
    }

    #[test]
    fn names_that_slug_alike_get_distinct_prefixes_and_never_a_plain_ones() {
        let names = [
            "my.server",
            "my server",
            "My Server",
            "my_server",
            "my__server",
        ];
        let prefixes: std::collections::BTreeSet<String> = names
            .iter()
            .map(|n| server_prefix(n).into_owned())
            .collect();
        assert_eq!(prefixes.len(), names.len(), "{prefixes:?}");
        assert!(
            prefixes.contains("my_server"),
            "the plain one keeps its name"
        );
    }

    #[test]
    fn every_prefix_fits_every_providers_rule_and_is_stable() {
        let long = "x y z ".repeat(30);
        let names = [
            "Time Server",
            "my.server",
            "-lead",
            "a\u{7f}b",
            "🙂",
            long.as_str(),
            "__",
        ];
        for name in names {
            let p = server_prefix(name);
            assert_eq!(p, server_prefix(name), "stable");
            assert!(
                !p.is_empty()
                    && p.len() <= SLUG_MAX_CHARS + 1 + HASH_HEX
                    && p.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
                "{name:?} → {p:?}"
            );
        }
    }
}
