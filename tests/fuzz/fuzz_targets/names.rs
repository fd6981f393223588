//! Name mangling: `NameTemplate::new` and `assign` over arbitrary templates, lengths and pairs.
//!
//! Input: byte 0 picks the maximum length (16..=256), byte 1 the template (a few fixed ones, or the
//! first field of the input), the rest is `0xFF`-separated fields taken as (server, tool) pairs
//! (`0xFF` never occurs in UTF-8). Beyond "no panic":
//! - every name matches `^[a-zA-Z_][a-zA-Z0-9_-]{0,max-1}$` (with the default 64, OpenAI's and
//!   Anthropic's `^[a-zA-Z0-9_-]{1,64}$` and Gemini's letter-or-underscore first rule at once);
//! - distinct pairs get distinct names, a pair given twice the same name;
//! - the names depend on the set of pairs only: reversed input order gives the same mapping.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::convert::{NameTemplate, DEFAULT_NAME_TEMPLATE};
use mcp_sidecar::names::ServerName;

const TEMPLATES: [&str; 5] = [
    DEFAULT_NAME_TEMPLATE,
    "{tool}",
    "{server}_{tool}",
    "{tool}-{server}",
    "x{server}{tool}",
];

fuzz_target!(|data: &[u8]| {
    let [len, template, rest @ ..] = data else {
        return;
    };
    let max_len = 16 + usize::from(*len) % 241;
    let mut fields: Vec<String> = rest
        .split(|b| *b == 0xFF)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let choice = usize::from(*template) % (TEMPLATES.len() + 1);
    let template_text = match TEMPLATES.get(choice) {
        Some(t) => (*t).to_owned(),
        None if fields.is_empty() => return,
        None => fields.remove(0),
    };
    let Ok(template) = NameTemplate::new(&template_text, max_len) else {
        return;
    };
    let pairs: Vec<(&str, &str)> = fields
        .chunks(2)
        .map(|p| (p[0].as_str(), p.get(1).map_or("", String::as_str)))
        .collect();
    let servers: Vec<ServerName> = pairs.iter().map(|(s, _)| ServerName::from(*s)).collect();
    let typed = |pairs: &[(&str, &str)], servers: &[ServerName]| -> Vec<String> {
        let typed: Vec<(&ServerName, &str)> = servers
            .iter()
            .zip(pairs)
            .map(|(s, (_, t))| (s, *t))
            .collect();
        template.assign(&typed)
    };
    let names = typed(&pairs, &servers);
    assert_eq!(names.len(), pairs.len());

    let mut by_pair: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    let mut by_name: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for (pair, name) in pairs.iter().zip(&names) {
        assert!(
            valid(name, max_len),
            "{name:?} from {pair:?} (max {max_len})"
        );
        assert!(template.is_valid_name(name));
        if max_len <= 64 {
            assert!(name.len() <= 64);
        }
        if let Some(before) = by_pair.insert(*pair, name) {
            assert_eq!(before, name, "one pair, two names");
        }
        if let Some(other) = by_name.insert(name, *pair) {
            assert_eq!(other, *pair, "two pairs share the name {name:?}");
        }
    }

    let reversed: Vec<(&str, &str)> = pairs.iter().rev().copied().collect();
    let reversed_servers: Vec<ServerName> = servers.iter().rev().cloned().collect();
    for (pair, name) in reversed.iter().zip(typed(&reversed, &reversed_servers)) {
        assert_eq!(
            by_pair.get(pair).copied(),
            Some(name.as_str()),
            "order changed a name"
        );
    }
});

/// `^[a-zA-Z_][a-zA-Z0-9_-]{0,max-1}$`, written out independently of the crate.
fn valid(name: &str, max_len: usize) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= max_len
        && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}
