//! One exposed tool, rendered once per listing variant: its entry object and its definition as
//! compact JSON text, with the definition's token estimate. Listings are spliced from these texts
//! (`listing`), so a tool is converted and serialised once per variant for as long as it stays
//! in the tool set — across catalog rebuilds too, when its name, server and definition are the
//! same (`catalog`).
//!
//! Memory: at most [`VARIANTS`] plain and [`VARIANTS`] deferred renderings per tool, each about
//! the size of its definition in that format; they go with the tool.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::entry::Entry;
use crate::canonical::canonical_json;
use crate::convert::{self, defer, tokens, Options, ToolFormat};

/// Listing variants that render differently: strict mode only changes the two OpenAI formats.
pub const VARIANTS: usize = 7;

/// A format and the options that change its definitions (strict mode, OpenAI formats only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    pub format: ToolFormat,
    pub strict: bool,
}

impl Variant {
    /// `strict` is kept only where it changes definitions.
    pub fn new(format: ToolFormat, options: Options) -> Variant {
        let strict =
            options.strict && matches!(format, ToolFormat::Openai | ToolFormat::OpenaiResponses);
        Variant { format, strict }
    }

    pub fn options(self) -> Options {
        Options {
            strict: self.strict,
        }
    }

    /// The variant's slot in the per-variant caches, `0..VARIANTS`.
    pub fn index(self) -> usize {
        match (self.format, self.strict) {
            (ToolFormat::Openai, false) => 0,
            (ToolFormat::Openai, true) => 1,
            (ToolFormat::OpenaiResponses, false) => 2,
            (ToolFormat::OpenaiResponses, true) => 3,
            (ToolFormat::Anthropic, _) => 4,
            (ToolFormat::Gemini, _) => 5,
            (ToolFormat::Mcp, _) => 6,
        }
    }
}

/// One tool in one variant.
#[derive(Debug)]
pub struct Piece {
    /// The tool entry (`{annotations?, conversionNotes, definition, deferred?, hash, name,
    /// permission?, readOnly, server, title?, tokens, tool}`), compact JSON with sorted keys.
    pub entry: Box<str>,
    /// The definition alone, canonical JSON (what the fingerprint hashes).
    pub definition: Box<str>,
    /// The definition's token estimate.
    pub tokens: u64,
}

/// The renderings of one tool, made on first use.
#[derive(Debug, Default)]
pub struct Pieces {
    plain: [OnceLock<Piece>; VARIANTS],
    deferred: [OnceLock<Piece>; VARIANTS],
}

impl Pieces {
    /// `entry` in `variant`, marked deferred or not.
    pub fn get(&self, entry: &Entry, variant: Variant, deferred: bool) -> &Piece {
        let slots = if deferred {
            &self.deferred
        } else {
            &self.plain
        };
        slots[variant.index()].get_or_init(|| render(entry, variant, deferred))
    }
}

/// Converts and serialises one entry.
fn render(entry: &Entry, variant: Variant, deferred: bool) -> Piece {
    let convert::Converted {
        mut definition,
        notes,
    } = convert::definition(
        variant.format,
        variant.options(),
        &entry.name,
        &entry.tool.raw,
    );
    if deferred {
        defer::mark(variant.format, &mut definition);
    }
    let definition = canonical_json(&definition);
    let tokens = tokens::estimate(definition.len());
    let raw = &entry.tool.raw;
    let annotations = raw.get("annotations").filter(|a| a.is_object());
    // Keys before `definition`, then after it: the entry's keys stay sorted.
    let mut before = Map::new();
    if let Some(a) = annotations {
        before.insert("annotations".into(), a.clone());
    }
    before.insert(
        "conversionNotes".into(),
        serde_json::to_value(&notes).unwrap_or_default(),
    );
    let mut after = Map::new();
    if deferred {
        after.insert("deferred".into(), Value::Bool(true));
    }
    after.insert("hash".into(), Value::from(entry.tool.hash.as_str()));
    after.insert("name".into(), Value::from(entry.name.as_str()));
    if let Some(p) = &entry.tool.permission {
        after.insert("permission".into(), Value::from(p.as_str()));
    }
    let read_only = annotations
        .and_then(|a| a.get("readOnlyHint"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    after.insert("readOnly".into(), Value::Bool(read_only));
    after.insert("server".into(), Value::from(entry.server.as_str()));
    if let Some(title) = raw.get("title").and_then(Value::as_str) {
        after.insert("title".into(), Value::from(title));
    }
    after.insert("tokens".into(), Value::from(tokens));
    after.insert("tool".into(), Value::from(entry.tool.name.as_str()));
    let before = canonical_json(&Value::Object(before));
    let after = canonical_json(&Value::Object(after));
    let entry = format!(
        "{},\"definition\":{definition},{}",
        &before[..before.len() - 1],
        &after[1..]
    );
    Piece {
        entry: entry.into_boxed_str(),
        definition: definition.into_boxed_str(),
        tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::tools::validate_tools;
    use serde_json::json;

    fn entry(tool: Value) -> Entry {
        let tool = validate_tools("s", vec![tool]).unwrap().remove(0);
        Entry {
            name: "mcp__s__t".into(),
            server: "s".into(),
            tool,
        }
    }

    #[test]
    fn entry_text_is_the_entry_object_with_sorted_keys() {
        let e = entry(json!({
            "name": "t", "title": "T", "description": "d",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
            "annotations": {"readOnlyHint": true},
        }));
        let variant = Variant::new(ToolFormat::Anthropic, Options::default());
        let piece = render(&e, variant, false);
        let parsed: Value = serde_json::from_str(&piece.entry).unwrap();
        assert_eq!(canonical_json(&parsed), &*piece.entry);
        assert_eq!(
            parsed["definition"],
            serde_json::from_str::<Value>(&piece.definition).unwrap()
        );
        assert_eq!(parsed["tokens"], json!(piece.tokens));
        assert_eq!(piece.tokens, tokens::estimate(piece.definition.len()));
        assert_eq!(parsed["readOnly"], json!(true));
        assert_eq!(parsed["title"], json!("T"));
        assert!(parsed.get("deferred").is_none());
        let deferred: Value = serde_json::from_str(&render(&e, variant, true).entry).unwrap();
        assert_eq!(deferred["deferred"], json!(true));
        assert_eq!(deferred["definition"]["defer_loading"], json!(true));
    }

    #[test]
    fn strict_only_varies_openai_formats() {
        let strict = Options { strict: true };
        assert_eq!(Variant::new(ToolFormat::Gemini, strict).index(), 5);
        assert_eq!(Variant::new(ToolFormat::Openai, strict).index(), 1);
        let mut seen: Vec<usize> = [false, true]
            .into_iter()
            .flat_map(|s| {
                ToolFormat::ALL
                    .into_iter()
                    .map(move |f| Variant::new(f, Options { strict: s }).index())
            })
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, (0..VARIANTS).collect::<Vec<_>>());
    }
}
