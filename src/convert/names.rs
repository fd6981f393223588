//! Exposed tool names: the name a host (and its model) sees for each
//! `(server, tool)` pair.
//!
//! A [`NameTemplate`] is parsed once from config (`{server}` and `{tool}`
//! placeholders, default [`DEFAULT_NAME_TEMPLATE`]) together with a maximum
//! length. [`NameTemplate::assign`] turns a set of pairs into names that all
//! match `^[a-zA-Z_][a-zA-Z0-9_-]{0,max_len-1}$`: what OpenAI and Anthropic
//! accept (`^[a-zA-Z0-9_-]{1,64}$`) and what Gemini accepts (a letter or `_`
//! first; it also allows `.` and `:`, which the others do not), at once.
//! With the default `max_len` of 64 every name fits every provider.
//!
//! 1. Render the template. A rendering that starts with a digit or `-` gets a
//!    `_` in front (Gemini's first-character rule; a custom template such as
//!    `{tool}` can produce one). If the result is a valid name, keep it.
//! 2. Otherwise sanitise it (every char outside `[A-Za-z0-9_-]` becomes `_`,
//!    and `_` goes in front of a leading digit or `-`) and append `_` + the
//!    first 8 lowercase hex chars of `sha256(server + "\0" + tool)`,
//!    truncating the sanitised part so the whole fits in `max_len`.
//! 3. If two or more distinct pairs end up with the same name, *every* pair in
//!    that group is moved to the hashed form (so who "wins" never depends on
//!    input order). If a group whose members are all hashed already still
//!    collides, every pair in it gets the hash extended to 16 hex chars.
//!    (With `max_len` 16, too short for a sanitised part + `_` + 16 hex, that
//!    name is `_` + the first 15 hex chars.) This repeats until a pass changes nothing; a pair only
//!    ever moves up, so it ends.
//! 4. A collision that survives 16 hex chars needs either a 64-bit hash
//!    collision or two pairs whose `server + "\0" + tool` bytes coincide (a
//!    NUL inside a name). As a last resort, the pairs of such a group are
//!    sorted by `(server, tool)` and all but the first get `_2`, `_3`, ...
//!    (the first number not already taken, truncating to fit), so names are
//!    always unique per distinct pair.
//!
//! Determinism: the output depends only on the template, `max_len` and the
//! *set* of pairs — never on their order, on duplicates, or on anything else —
//! so the same config always yields the same names. Identical pairs given
//! twice are the same tool and get the same name (that is not a collision).

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

/// The template used when config names none.
pub const DEFAULT_NAME_TEMPLATE: &str = "mcp__{server}__{tool}";
/// The name length used when config names none (OpenAI's limit).
pub const DEFAULT_MAX_NAME_LENGTH: usize = 64;
/// Smallest accepted maximum name length.
pub const MIN_MAX_NAME_LENGTH: usize = 16;
/// Largest accepted maximum name length.
pub const MAX_MAX_NAME_LENGTH: usize = 256;

/// Hex chars of the short hash suffix.
const SHORT_HASH_HEX: usize = 8;
/// Hex chars of the extended hash suffix (used only for a group that still collides).
const LONG_HASH_HEX: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Server,
    Tool,
}

/// A parsed name template plus its maximum name length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameTemplate {
    source: String,
    segments: Vec<Segment>,
    max_len: usize,
}

impl Default for NameTemplate {
    /// [`DEFAULT_NAME_TEMPLATE`] with [`DEFAULT_MAX_NAME_LENGTH`].
    fn default() -> Self {
        NameTemplate {
            source: DEFAULT_NAME_TEMPLATE.to_string(),
            segments: vec![
                Segment::Literal("mcp__".to_string()),
                Segment::Server,
                Segment::Literal("__".to_string()),
                Segment::Tool,
            ],
            max_len: DEFAULT_MAX_NAME_LENGTH,
        }
    }
}

/// How a pair's name is formed; only ever moves upwards during [`NameTemplate::assign`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Form {
    /// The rendered template as is.
    Plain,
    /// Sanitised + `_` + 8 hex.
    ShortHash,
    /// Sanitised + `_` + 16 hex.
    LongHash,
}

/// Per distinct pair: everything needed to build any of its forms.
struct Candidate {
    rendered: String,
    sanitised: String,
    hash_hex: String,
    form: Form,
}

impl NameTemplate {
    /// Err(String) when the template lacks `{tool}`, has an unknown `{placeholder}`, or max_len is out of range.
    ///
    /// Also rejected: an unterminated `{`, a stray `}`, and literal text with
    /// characters outside `[A-Za-z0-9_-]` (every name would otherwise be
    /// hash-suffixed, which is never what the config author meant).
    pub fn new(template: &str, max_len: usize) -> Result<Self, String> {
        if !(MIN_MAX_NAME_LENGTH..=MAX_MAX_NAME_LENGTH).contains(&max_len) {
            return Err(format!(
                "max name length {max_len} is out of range; expected {MIN_MAX_NAME_LENGTH}..={MAX_MAX_NAME_LENGTH}"
            ));
        }
        let mut segments = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let (literal, from_brace) = rest.split_at(open);
            push_literal(&mut segments, literal, template)?;
            let inner = from_brace.get(1..).unwrap_or_default();
            let Some(close) = inner.find('}') else {
                return Err(format!(
                    "name template {template:?} has an unterminated '{{'"
                ));
            };
            let (placeholder, from_close) = inner.split_at(close);
            segments.push(match placeholder {
                "server" => Segment::Server,
                "tool" => Segment::Tool,
                other => {
                    return Err(format!(
                        "name template {template:?} has unknown placeholder {{{other}}}; expected {{server}} or {{tool}}"
                    ))
                }
            });
            rest = from_close.get(1..).unwrap_or_default();
        }
        push_literal(&mut segments, rest, template)?;
        if !segments.contains(&Segment::Tool) {
            return Err(format!("name template {template:?} must contain {{tool}}"));
        }
        Ok(NameTemplate {
            source: template.to_string(),
            segments,
            max_len,
        })
    }

    /// The template text as given.
    pub fn template(&self) -> &str {
        &self.source
    }

    /// The maximum name length.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The template with `{server}` and `{tool}` substituted, before any
    /// sanitising or hashing.
    pub fn render(&self, server: &str, tool: &str) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            out.push_str(match segment {
                Segment::Literal(text) => text,
                Segment::Server => server,
                Segment::Tool => tool,
            });
        }
        out
    }

    /// Whether `name` matches `^[a-zA-Z_][a-zA-Z0-9_-]{0,max_len-1}$`.
    pub fn is_valid_name(&self, name: &str) -> bool {
        name.len() <= self.max_len
            && name.chars().all(is_name_char)
            && name.chars().next().is_some_and(is_first_char)
    }

    /// Assign exposed names for a set of (server, tool) pairs. Returns names in the same order as the input.
    ///
    /// See the module doc for the rules; the result depends only on the set
    /// of pairs, never on their order.
    pub fn assign(&self, pairs: &[(&str, &str)]) -> Vec<String> {
        // BTreeMap: every loop below visits pairs in sorted order, never input order.
        let mut candidates: BTreeMap<(&str, &str), Candidate> = BTreeMap::new();
        for &(server, tool) in pairs {
            candidates.entry((server, tool)).or_insert_with(|| {
                let rendered = letter_first(self.render(server, tool));
                let form = if self.is_valid_name(&rendered) {
                    Form::Plain
                } else {
                    Form::ShortHash
                };
                Candidate {
                    sanitised: sanitise(&rendered),
                    rendered,
                    hash_hex: hash_hex(server, tool),
                    form,
                }
            });
        }

        // Raise whole colliding groups until nothing changes. Each pass raises
        // at least one pair and a pair is raised at most twice, so this ends.
        loop {
            let mut changed = false;
            for group in self.colliding_groups(&candidates) {
                let target = if group
                    .iter()
                    .any(|key| candidates.get(key).is_some_and(|c| c.form == Form::Plain))
                {
                    Form::ShortHash
                } else {
                    Form::LongHash
                };
                for key in group {
                    if let Some(candidate) = candidates.get_mut(&key) {
                        if candidate.form < target {
                            candidate.form = target;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }

        let mut names: BTreeMap<(&str, &str), String> = candidates
            .iter()
            .map(|(key, candidate)| (*key, self.name_for(candidate)))
            .collect();

        // Last resort (see module doc): numbered suffixes within a group that
        // still collides at 16 hex chars.
        let mut used: BTreeSet<String> = names.values().cloned().collect();
        for group in self.colliding_groups(&candidates) {
            for key in group.into_iter().skip(1) {
                let Some(base) = names.get(&key).cloned() else {
                    continue;
                };
                let fresh = (2u64..)
                    .map(|n| self.fit(&base, &format!("_{n}")))
                    .find(|name| !used.contains(name));
                if let Some(fresh) = fresh {
                    used.insert(fresh.clone());
                    names.insert(key, fresh);
                }
            }
        }

        pairs
            .iter()
            .map(|key| names.get(key).cloned().unwrap_or_default())
            .collect()
    }

    /// Groups (each sorted, in name order) of two or more distinct pairs
    /// whose current names are equal.
    fn colliding_groups<'a>(
        &self,
        candidates: &BTreeMap<(&'a str, &'a str), Candidate>,
    ) -> Vec<Vec<(&'a str, &'a str)>> {
        let mut by_name: BTreeMap<String, Vec<(&'a str, &'a str)>> = BTreeMap::new();
        for (key, candidate) in candidates {
            by_name
                .entry(self.name_for(candidate))
                .or_default()
                .push(*key);
        }
        by_name
            .into_values()
            .filter(|group| group.len() > 1)
            .collect()
    }

    fn name_for(&self, candidate: &Candidate) -> String {
        match candidate.form {
            Form::Plain => candidate.rendered.clone(),
            Form::ShortHash => {
                self.hashed(&candidate.sanitised, &candidate.hash_hex, SHORT_HASH_HEX)
            }
            Form::LongHash => self.hashed(&candidate.sanitised, &candidate.hash_hex, LONG_HASH_HEX),
        }
    }

    /// `sanitised` truncated + `_` + the first `hex_len` hex chars; just `_`
    /// and as many hex chars as fit when `_` + hex alone would not fit (a hex
    /// digit may not come first).
    fn hashed(&self, sanitised: &str, hash_hex: &str, hex_len: usize) -> String {
        let hex: String = hash_hex.chars().take(hex_len).collect();
        if hex.len() + 1 > self.max_len {
            let mut out = String::from("_");
            out.extend(hex.chars().take(self.max_len - 1));
            return out;
        }
        self.fit(sanitised, &format!("_{hex}"))
    }

    /// `base` truncated so that `base + suffix` fits in `max_len`.
    fn fit(&self, base: &str, suffix: &str) -> String {
        let keep = self.max_len.saturating_sub(suffix.len());
        let mut out: String = base.chars().take(keep).collect();
        out.push_str(suffix);
        // Only matters if the suffix alone were longer than max_len.
        out.chars().take(self.max_len).collect()
    }
}

fn push_literal(segments: &mut Vec<Segment>, literal: &str, template: &str) -> Result<(), String> {
    if literal.contains('}') {
        return Err(format!(
            "name template {template:?} has a '}}' without a matching '{{'"
        ));
    }
    if let Some(bad) = literal.chars().find(|c| !is_name_char(*c)) {
        return Err(format!(
            "name template {template:?} has character {bad:?} outside [A-Za-z0-9_-]"
        ));
    }
    if !literal.is_empty() {
        segments.push(Segment::Literal(literal.to_string()));
    }
    Ok(())
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Gemini: "Must start with a letter or an underscore".
fn is_first_char(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// `_` + `name` when `name` starts with a digit or `-` (a name char that may
/// not come first); `name` otherwise. Deterministic, and it keeps the rest of
/// the name readable rather than forcing a hash.
fn letter_first(name: String) -> String {
    match name.chars().next() {
        Some(c) if is_name_char(c) && !is_first_char(c) => format!("_{name}"),
        _ => name,
    }
}

/// Every char outside `[A-Za-z0-9_-]` becomes `_` (one `_` per char, so the
/// result is ASCII); a leading digit or `-` gets `_` in front.
fn sanitise(rendered: &str) -> String {
    letter_first(
        rendered
            .chars()
            .map(|c| if is_name_char(c) { c } else { '_' })
            .collect(),
    )
}

/// Lowercase hex of `sha256(server + "\0" + tool)`, 64 chars.
fn hash_hex(server: &str, tool: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(server.as_bytes());
    hasher.update([0u8]);
    hasher.update(tool.as_bytes());
    hex::encode(hasher.finalize())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    fn default_template() -> NameTemplate {
        NameTemplate::new(DEFAULT_NAME_TEMPLATE, DEFAULT_MAX_NAME_LENGTH).unwrap()
    }

    /// Assigns and checks every output against `^[a-zA-Z0-9_-]{1,max_len}$`
    /// and uniqueness per distinct pair.
    fn assign_checked(template: &NameTemplate, pairs: &[(&str, &str)]) -> Vec<String> {
        let names = template.assign(pairs);
        assert_eq!(names.len(), pairs.len());
        for name in &names {
            assert!(
                name.len() <= template.max_len()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                    && name
                        .bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_'),
                "invalid name {name:?}"
            );
        }
        let mut by_name: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
        for (name, pair) in names.iter().zip(pairs) {
            if let Some(other) = by_name.insert(name, *pair) {
                assert_eq!(other, *pair, "{name:?} given to two pairs");
            }
        }
        names
    }

    #[test]
    fn hash_matches_spec() {
        // printf 'github\0create_issue' | sha256sum
        assert_eq!(
            hash_hex("github", "create_issue"),
            "5b9912e694bb311f19e7ae135eeb21a45e827b0383d5541da680988adfe65495"
        );
    }

    #[test]
    fn default_template_keeps_valid_names() {
        assert_eq!(NameTemplate::default(), default_template());
        let names = assign_checked(
            &default_template(),
            &[("github", "create_issue"), ("fs", "read-file"), ("s", "")],
        );
        assert_eq!(
            names,
            [
                "mcp__github__create_issue",
                "mcp__fs__read-file",
                "mcp__s__"
            ]
        );
    }

    #[test]
    fn invalid_chars_are_sanitised_and_hashed() {
        let names = assign_checked(
            &default_template(),
            &[
                ("fs", "read.file"),
                ("web", "a/b"),
                ("i18n", "héllo"),
                ("sp", "two words"),
            ],
        );
        assert_eq!(
            names,
            [
                "mcp__fs__read_file_a70c2700".to_string(),
                format!("mcp__web__a_b_{}", &hash_hex("web", "a/b")[..8]),
                format!("mcp__i18n__h_llo_{}", &hash_hex("i18n", "héllo")[..8]),
                format!("mcp__sp__two_words_{}", &hash_hex("sp", "two words")[..8]),
            ]
        );
    }

    #[test]
    fn long_names_are_truncated_with_hash() {
        let tool = "x".repeat(100);
        let names = assign_checked(&default_template(), &[("srv", &tool)]);
        let expected = format!(
            "mcp__srv__{}_{}",
            "x".repeat(45),
            &hash_hex("srv", &tool)[..8]
        );
        assert_eq!(expected.len(), 64);
        assert_eq!(names, [expected]);

        // Exactly max_len is still plain; one more is hashed.
        let fits = "y".repeat(64 - "mcp__s__".len());
        let over = "y".repeat(65 - "mcp__s__".len());
        let names = assign_checked(&default_template(), &[("s", &fits), ("s", &over)]);
        assert_eq!(names[0], format!("mcp__s__{fits}"));
        assert_eq!(
            names[1],
            format!("mcp__s__{}_{}", "y".repeat(47), &hash_hex("s", &over)[..8])
        );
    }

    #[test]
    fn colliding_group_is_hashed_entirely() {
        let names = assign_checked(
            &default_template(),
            &[("a__b", "c"), ("a", "b__c"), ("a", "d")],
        );
        assert_eq!(
            names,
            [
                "mcp__a__b__c_a92700ce",
                "mcp__a__b__c_01b8a75b",
                "mcp__a__d"
            ]
        );
        assert_ne!(names[0], names[1]);
    }

    #[test]
    fn plain_name_colliding_with_hashed_name_is_hashed_too() {
        let dotted = ("x", "y.z");
        assert_eq!(
            assign_checked(&default_template(), &[dotted]),
            ["mcp__x__y_z_0d708916"]
        );
        // A valid tool name that renders to exactly that hashed name.
        let lookalike = ("x", "y_z_0d708916");
        let names = assign_checked(&default_template(), &[dotted, lookalike]);
        // The plain member moves to the hashed form; the already-hashed one keeps it.
        assert_eq!(
            names,
            [
                "mcp__x__y_z_0d708916".to_string(),
                format!(
                    "mcp__x__y_z_0d708916_{}",
                    &hash_hex("x", "y_z_0d708916")[..8]
                ),
            ]
        );
    }

    #[test]
    fn template_without_server_hashes_shared_tool_names() {
        let template = NameTemplate::new("{tool}", 64).unwrap();
        let names = assign_checked(
            &template,
            &[("one", "search"), ("two", "search"), ("one", "fetch")],
        );
        assert_eq!(
            names,
            [
                format!("search_{}", &hash_hex("one", "search")[..8]),
                format!("search_{}", &hash_hex("two", "search")[..8]),
                "fetch".to_string(),
            ]
        );
        // An empty rendering is invalid and becomes just the hash suffix.
        assert_eq!(
            assign_checked(&template, &[("s", "")]),
            [format!("_{}", &hash_hex("s", "")[..8])]
        );
    }

    #[test]
    fn leading_digit_or_dash_gets_an_underscore() {
        let template = NameTemplate::new("{tool}", 64).unwrap();
        let names = assign_checked(
            &template,
            &[("s", "1password"), ("s", "-x"), ("s", "ok"), ("s", "9.x")],
        );
        assert_eq!(
            names,
            [
                "_1password".to_string(),
                "_-x".to_string(),
                "ok".to_string(),
                format!("_9_x_{}", &hash_hex("s", "9.x")[..8]),
            ]
        );
        // A tool literally named `_1password` collides with the prefixed one:
        // both are hashed, whatever the order.
        let names = assign_checked(&template, &[("s", "_1password"), ("s", "1password")]);
        assert_eq!(
            names,
            [
                format!("_1password_{}", &hash_hex("s", "_1password")[..8]),
                format!("_1password_{}", &hash_hex("s", "1password")[..8]),
            ]
        );
        assert!(!template.is_valid_name("1abc"));
        assert!(!template.is_valid_name(""));
        assert!(template.is_valid_name("_1abc"));
    }

    #[test]
    fn duplicate_pairs_share_a_name_without_hashing() {
        let names = assign_checked(&default_template(), &[("s", "t"), ("s", "t"), ("s", "u")]);
        assert_eq!(names, ["mcp__s__t", "mcp__s__t", "mcp__s__u"]);
    }

    #[test]
    fn unresolvable_collision_gets_numbered_suffix() {
        // Same bytes for sha256(server + "\0" + tool) and the same sanitised
        // rendering ("a_b_c"), so no hash length can tell them apart.
        let template = NameTemplate::new("{server}_{tool}", 64).unwrap();
        let pairs = [("a\0b", "c"), ("a", "b\0c")];
        let hex = hash_hex("a", "b\0c");
        assert_eq!(hex, hash_hex("a\0b", "c"));
        let names = assign_checked(&template, &pairs);
        // ("a", "b\0c") sorts first and keeps the 16-hex form.
        assert_eq!(
            names,
            [
                format!("a_b_c_{}_2", &hex[..16]),
                format!("a_b_c_{}", &hex[..16])
            ]
        );
        let mut reversed = pairs;
        reversed.reverse();
        assert_eq!(
            assign_checked(&template, &reversed),
            [
                format!("a_b_c_{}", &hex[..16]),
                format!("a_b_c_{}_2", &hex[..16])
            ]
        );

        // At the minimum length the 16-hex form is the hash alone.
        let tight = NameTemplate::new("{server}_{tool}", MIN_MAX_NAME_LENGTH).unwrap();
        assert_eq!(
            assign_checked(&tight, &pairs),
            [format!("_{}_2", &hex[..13]), format!("_{}", &hex[..15])]
        );
    }

    #[test]
    fn max_len_edges() {
        let tight = NameTemplate::new(DEFAULT_NAME_TEMPLATE, MIN_MAX_NAME_LENGTH).unwrap();
        let names = assign_checked(
            &tight,
            &[("srv", "tool"), ("server", "tool"), ("srv", "tool333")],
        );
        assert_eq!(
            names,
            [
                "mcp__srv__tool".to_string(),
                "mcp__se_dfbe818f".to_string(),
                format!("mcp__sr_{}", &hash_hex("srv", "tool333")[..8]),
            ]
        );
        // 16 chars exactly is still plain.
        assert_eq!(
            assign_checked(&tight, &[("srv", "tool2")]),
            ["mcp__srv__tool2"]
        );
        assert_eq!(names[1].len(), 16);

        let wide = NameTemplate::new(DEFAULT_NAME_TEMPLATE, MAX_MAX_NAME_LENGTH).unwrap();
        let tool = "t".repeat(300);
        let names = assign_checked(&wide, &[("s", &tool)]);
        assert_eq!(names[0].len(), 256);
        assert!(names[0].ends_with(&format!("_{}", &hash_hex("s", &tool)[..8])));

        assert_eq!(
            NameTemplate::new(DEFAULT_NAME_TEMPLATE, 15),
            Err("max name length 15 is out of range; expected 16..=256".to_string())
        );
        assert!(NameTemplate::new(DEFAULT_NAME_TEMPLATE, 257).is_err());
        assert!(NameTemplate::new(DEFAULT_NAME_TEMPLATE, 0).is_err());
    }

    #[test]
    fn template_errors() {
        let err = |t: &str| NameTemplate::new(t, 64).unwrap_err();
        assert_eq!(
            err("mcp__{server}"),
            r#"name template "mcp__{server}" must contain {tool}"#
        );
        assert_eq!(err(""), r#"name template "" must contain {tool}"#);
        assert_eq!(
            err("{tool}{bogus}"),
            r#"name template "{tool}{bogus}" has unknown placeholder {bogus}; expected {server} or {tool}"#
        );
        assert_eq!(
            err("{Tool}"),
            r#"name template "{Tool}" has unknown placeholder {Tool}; expected {server} or {tool}"#
        );
        assert_eq!(
            err("x_{tool"),
            r#"name template "x_{tool" has an unterminated '{'"#
        );
        assert_eq!(
            err("x}{tool}"),
            r#"name template "x}{tool}" has a '}' without a matching '{'"#
        );
        assert_eq!(
            err("{server}.{tool}"),
            r#"name template "{server}.{tool}" has character '.' outside [A-Za-z0-9_-]"#
        );
        assert!(NameTemplate::new("{tool}__{tool}", 64).is_ok());
        assert_eq!(
            NameTemplate::new("t-{tool}", 64).unwrap().template(),
            "t-{tool}"
        );
    }

    #[test]
    fn names_depend_only_on_the_set_of_pairs() {
        let long = "z".repeat(80);
        let lookalike = format!("y_z_{}", &hash_hex("x", "y.z")[..8]);
        let pairs: Vec<(&str, &str)> = vec![
            ("a__b", "c"),
            ("a", "b__c"),
            ("x", "y.z"),
            ("x", lookalike.as_str()),
            ("srv", long.as_str()),
            ("ünï", "cødé"),
            ("a", "d"),
        ];
        let template = default_template();
        let reference: BTreeMap<(&str, &str), String> = pairs
            .iter()
            .copied()
            .zip(assign_checked(&template, &pairs))
            .collect();
        let mut permutation = pairs.clone();
        for_each_permutation(&mut permutation, 0, &mut |perm| {
            let names = assign_checked(&template, perm);
            for (pair, name) in perm.iter().zip(&names) {
                assert_eq!(reference.get(pair), Some(name));
            }
            // With a duplicate thrown in the answer is the same too.
            let mut with_dup = perm.to_vec();
            with_dup.push(perm[0]);
            let names = assign_checked(&template, &with_dup);
            for (pair, name) in with_dup.iter().zip(&names) {
                assert_eq!(reference.get(pair), Some(name));
            }
        });
    }

    type Pair<'a> = (&'a str, &'a str);

    fn for_each_permutation<'a>(
        items: &mut [Pair<'a>],
        start: usize,
        visit: &mut dyn FnMut(&[Pair<'a>]),
    ) {
        if start == items.len() {
            visit(items);
            return;
        }
        for i in start..items.len() {
            items.swap(start, i);
            for_each_permutation(items, start + 1, visit);
            items.swap(start, i);
        }
    }
}
