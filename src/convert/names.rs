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
//! 1. Render the template, `{server}` being the server's prefix (`server_prefix`: the name
//!    itself when it is valid in a tool name, else a slug of it and a hash). A rendering that starts with a digit or `-` gets a
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

use super::server_prefix::server_prefix;
use crate::names::ServerName;

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

/// Why a name template (or its maximum length) was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameTemplateError {
    #[error("max name length {max_len} is out of range; expected {MIN_MAX_NAME_LENGTH}..={MAX_MAX_NAME_LENGTH}")]
    LengthOutOfRange { max_len: usize },
    #[error("name template {template:?} has an unterminated '{{'")]
    Unterminated { template: String },
    #[error("name template {template:?} has unknown placeholder {{{placeholder}}}; expected {{server}} or {{tool}}")]
    UnknownPlaceholder {
        template: String,
        placeholder: String,
    },
    #[error("name template {template:?} must contain {{tool}}")]
    NoTool { template: String },
    #[error("name template {template:?} has a '}}' without a matching '{{'")]
    StrayClose { template: String },
    #[error("name template {template:?} has character {bad:?} outside [A-Za-z0-9_-]")]
    BadCharacter { template: String, bad: char },
}

impl NameTemplateError {
    /// The `initialize` parameter at fault.
    pub fn field(&self) -> &'static str {
        match self {
            NameTemplateError::LengthOutOfRange { .. } => "maxNameLength",
            _ => "nameTemplate",
        }
    }
}

impl NameTemplate {
    /// Refused when the template lacks `{tool}`, has an unknown `{placeholder}`, or max_len is out
    /// of range.
    ///
    /// Also rejected: an unterminated `{`, a stray `}`, and literal text with
    /// characters outside `[A-Za-z0-9_-]` (every name would otherwise be
    /// hash-suffixed, which is never what the config author meant).
    pub fn new(template: &str, max_len: usize) -> Result<Self, NameTemplateError> {
        if !(MIN_MAX_NAME_LENGTH..=MAX_MAX_NAME_LENGTH).contains(&max_len) {
            return Err(NameTemplateError::LengthOutOfRange { max_len });
        }
        let mut segments = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let (literal, from_brace) = rest.split_at(open);
            push_literal(&mut segments, literal, template)?;
            let inner = from_brace.get(1..).unwrap_or_default();
            let Some(close) = inner.find('}') else {
                return Err(NameTemplateError::Unterminated {
                    template: template.to_owned(),
                });
            };
            let (placeholder, from_close) = inner.split_at(close);
            segments.push(match placeholder {
                "server" => Segment::Server,
                "tool" => Segment::Tool,
                other => {
                    return Err(NameTemplateError::UnknownPlaceholder {
                        template: template.to_owned(),
                        placeholder: other.to_owned(),
                    })
                }
            });
            rest = from_close.get(1..).unwrap_or_default();
        }
        push_literal(&mut segments, rest, template)?;
        if !segments.contains(&Segment::Tool) {
            return Err(NameTemplateError::NoTool {
                template: template.to_owned(),
            });
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

    /// Whether `exposed` can be the name of one of `server`'s tools, before its tools are known:
    /// every form of such a name (plain, hashed, cut to fit) begins with the sanitised rendering
    /// of what the template puts before `{tool}`, as far as a hashed name keeps it. Always true
    /// when `{server}` does not come before `{tool}`: then the name alone cannot tell the server.
    pub fn may_name(&self, server: &ServerName, exposed: &str) -> bool {
        let tool_at = self
            .segments
            .iter()
            .position(|s| *s == Segment::Tool)
            .unwrap_or(0);
        let before = &self.segments[..tool_at];
        if !before.contains(&Segment::Server) {
            return true;
        }
        let rendered: String = before
            .iter()
            .map(|s| match s {
                Segment::Literal(text) => text.clone(),
                Segment::Server => server_prefix(server.as_str()).into_owned(),
                Segment::Tool => String::new(),
            })
            .collect();
        // ASCII: slicing by bytes is slicing by characters.
        let prefix = sanitise(&rendered);
        let kept = prefix
            .len()
            .min(self.max_len.saturating_sub(LONG_HASH_HEX + 1));
        exposed.starts_with(&prefix[..kept])
    }

    /// Assign exposed names for a set of (server, tool) pairs. Returns names in the same order as the input.
    /// The second of a pair is a tool's name, or a prompt's (the gateway names prompts with the
    /// same template); the first is typed, so the two cannot be given the wrong way round.
    ///
    /// See the module doc for the rules; the result depends only on the set
    /// of pairs, never on their order.
    pub fn assign(&self, pairs: &[(&ServerName, &str)]) -> Vec<String> {
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|&(s, t)| (s.as_str(), t)).collect();
        // BTreeMap: every loop below visits pairs in sorted order, never input order.
        let mut candidates: BTreeMap<(&str, &str), Candidate> = BTreeMap::new();
        for &(server, tool) in &pairs {
            candidates.entry((server, tool)).or_insert_with(|| {
                // `{server}` is the server's prefix; the hash stays over its name.
                let rendered = letter_first(self.render(&server_prefix(server), tool));
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

fn push_literal(
    segments: &mut Vec<Segment>,
    literal: &str,
    template: &str,
) -> Result<(), NameTemplateError> {
    if literal.contains('}') {
        return Err(NameTemplateError::StrayClose {
            template: template.to_owned(),
        });
    }
    if let Some(bad) = literal.chars().find(|c| !is_name_char(*c)) {
        return Err(NameTemplateError::BadCharacter {
            template: template.to_owned(),
            bad,
        });
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
mod tests;
