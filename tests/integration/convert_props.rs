//! Property tests of conversion, on deterministic pseudo-random input (`support::random`, fixed
//! seeds, bounded sizes): conversion never panics on arbitrary JSON, always terminates (cyclic and
//! fanned-out `$ref`s included), and its output follows the provider rules; names always satisfy
//! every provider's name rule; result budgets and escape stripping hold their promises.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::support::{
    self,
    random::{self, Rng},
};
use mcp_sidecar::convert::schema::MAX_SCHEMA_NODES;
use mcp_sidecar::convert::{
    ansi, arguments, budget, definition, NameTemplate, Options, ToolFormat,
};
use mcp_sidecar::names::ServerName;
use serde_json::json;

const CASES: u64 = 2000;

const VARIANTS: [(ToolFormat, bool); 7] = [
    (ToolFormat::Openai, false),
    (ToolFormat::Openai, true),
    (ToolFormat::OpenaiResponses, false),
    (ToolFormat::OpenaiResponses, true),
    (ToolFormat::Anthropic, false),
    (ToolFormat::Gemini, false),
    (ToolFormat::Mcp, false),
];

/// How many JSON values `value` holds, itself included.
fn nodes(value: &serde_json::Value) -> usize {
    1 + match value {
        serde_json::Value::Object(map) => map.values().map(nodes).sum(),
        serde_json::Value::Array(items) => items.iter().map(nodes).sum(),
        _ => 0,
    }
}

/// The conversion's promise of a bounded output: [`MAX_SCHEMA_NODES`] schema nodes, each of which
/// is a few JSON values (its keywords and their values), plus the definition's envelope.
fn assert_bounded(definition: &serde_json::Value, what: &str) {
    let limit = 8 * MAX_SCHEMA_NODES;
    let count = nodes(definition);
    assert!(
        count <= limit,
        "{count} JSON values (limit {limit}) for {what}"
    );
}

#[test]
fn conversion_never_panics_and_follows_provider_rules() {
    let mut rng = Rng::new(0x5eed_0001);
    let started = Instant::now();
    for case in 0..CASES {
        let tool = if case % 10 == 0 {
            random::json_value(&mut rng, 4)
        } else {
            random::tool(&mut rng)
        };
        for (format, strict) in VARIANTS {
            let converted = definition(format, Options { strict }, "mcp__s__t", &tool);
            assert_bounded(
                &converted.definition,
                &format!("case {case} {format}: {tool}"),
            );
            if format == ToolFormat::Mcp {
                continue;
            }
            let errors = support::provider_rules::check(format.as_str(), &converted.definition);
            assert!(
                errors.is_empty(),
                "case {case} {format} strict={strict}: {errors:#?}\ninput: {tool}\noutput: {}",
                converted.definition
            );
            // Notes are well-formed and bounded.
            assert!(converted.notes.len() <= 201);
            for note in &converted.notes {
                assert!(
                    note.path.is_empty() || note.path.starts_with('/'),
                    "{note:?}"
                );
            }
            // Deterministic (checked on a sample, to keep the test fast).
            if case % 8 == 0 {
                assert_eq!(
                    definition(format, Options { strict }, "mcp__s__t", &tool),
                    converted
                );
            }
        }
        if let Some(schema) = tool.get("inputSchema") {
            let args = random::json_value(&mut rng, 3);
            let _ = arguments::drop_optional_nulls(schema, &args);
        }
    }
    eprintln!(
        "{CASES} random tools x {} variants in {:?}",
        VARIANTS.len(),
        started.elapsed()
    );
}

#[test]
fn recursive_schemas_terminate() {
    let shapes = [
        json!({"type": "object", "properties": {"a": {"$ref": "#"}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/a"}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/properties/x"}}}),
        json!({"type": "object", "properties": {"x": {"$ref": "#/properties"}}}),
        json!({"type": "object", "allOf": [{"$ref": "#"}], "properties": {"y": {"anyOf": [{"$ref": "#"}, {"$ref": "#/properties/y"}]}}}),
    ];
    let mut fan_out = serde_json::Map::new();
    for i in 0..60 {
        let next = format!("#/$defs/d{}", i + 1);
        fan_out.insert(format!("d{i}"), json!({"anyOf": [{"$ref": next}, {"type": "array", "items": {"$ref": next}}, {"type": "object", "properties": {"k": {"$ref": next}, "l": {"$ref": next}}}]}));
    }
    fan_out.insert("d60".into(), json!({"$ref": "#/$defs/d0"}));
    let fan =
        json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/d0"}}, "$defs": fan_out});
    for schema in shapes.iter().chain(std::iter::once(&fan)) {
        let tool = json!({"name": "t", "inputSchema": schema});
        for (format, strict) in VARIANTS {
            let converted = definition(format, Options { strict }, "t", &tool);
            // Naively inlined, the fan-out expands to 2^60 nodes: a bounded output is the proof
            // that the walk was cut, whatever the machine's speed.
            assert_bounded(&converted.definition, &format!("{format}: {schema}"));
            if format != ToolFormat::Mcp {
                // The rules include: no `$ref` left at any schema position.
                let errors = support::provider_rules::check(format.as_str(), &converted.definition);
                assert!(errors.is_empty(), "{format} strict={strict}: {errors:#?}");
            }
        }
    }
}

#[test]
fn names_always_satisfy_every_provider() {
    let mut rng = Rng::new(0x5eed_0002);
    for case in 0..CASES / 4 {
        let count = 1 + rng.below(8);
        let owned: Vec<(String, String)> = (0..count)
            .map(|_| {
                let server = if rng.chance(30) {
                    (*rng.pick(&["s", "srv", "1st"])).to_string()
                } else {
                    random::text(&mut rng, 12)
                };
                let tool = if rng.chance(10) {
                    "t".repeat(rng.below(120))
                } else {
                    random::text(&mut rng, 30)
                };
                (server, tool)
            })
            .collect();
        let servers: Vec<ServerName> = owned.iter().map(|(s, _)| ServerName::from(s)).collect();
        let pairs: Vec<(&ServerName, &str)> = servers
            .iter()
            .zip(&owned)
            .map(|(s, (_, t))| (s, t.as_str()))
            .collect();
        let template = match case % 4 {
            0 => NameTemplate::default(),
            1 => NameTemplate::new("{tool}", 64).unwrap_or_default(),
            2 => NameTemplate::new("{server}-{tool}", 16).unwrap_or_default(),
            _ => NameTemplate::new("x_{tool}_{server}", 40).unwrap_or_default(),
        };
        let names = template.assign(&pairs);
        let mut owner: BTreeMap<&str, (&ServerName, &str)> = BTreeMap::new();
        for (name, pair) in names.iter().zip(&pairs) {
            assert!(
                support::provider_rules::name_ok_everywhere(name),
                "case {case}: {name:?} from {pair:?}"
            );
            assert!(name.len() <= template.max_len());
            if let Some(other) = owner.insert(name, *pair) {
                assert_eq!(other, *pair, "case {case}: {name} names two tools");
            }
        }
        let mut reversed = pairs.clone();
        reversed.reverse();
        let mut again = template.assign(&reversed);
        again.reverse();
        assert_eq!(again, names, "case {case}: order matters");
    }
}

#[test]
fn budgets_hold_and_nothing_is_lost() {
    let mut rng = Rng::new(0x5eed_0003);
    for case in 0..CASES / 4 {
        let mut content = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let block = match rng.below(5) {
                0 | 1 => json!({"type": "text", "text": random::text(&mut rng, 3000)}),
                2 => {
                    json!({"type": "image", "data": "A".repeat(rng.below(3000)), "mimeType": "image/png"})
                }
                3 => {
                    json!({"type": "resource", "resource": {"uri": "file:///x", "text": random::text(&mut rng, 500)}})
                }
                _ => random::json_value(&mut rng, 2),
            };
            content.push(block);
        }
        let result = json!({"content": content, "structuredContent": random::json_value(&mut rng, 2), "isError": rng.chance(20)});
        let limit = 1024 + rng.below(4096);
        let fitted = budget::fit(&result, limit, Some("r-1"));
        let text = fitted.result["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let media: usize = fitted.result["content"]
            .as_array()
            .map(|c| {
                c[1..]
                    .iter()
                    .map(|b| serde_json::to_string(b).unwrap_or_default().len())
                    .sum()
            })
            .unwrap_or_default();
        assert!(
            text.len() + media <= limit,
            "case {case}: {} + {media} > {limit}",
            text.len()
        );
        assert!(!text.contains('\u{1b}'), "case {case}: escape left");
        if let (Some(cut), Some(full)) = (fitted.cut, &fitted.full_text) {
            let (start, middle) = budget::read(full, cut.offset, cut.length);
            assert_eq!(start, cut.offset);
            assert_eq!(middle.len(), cut.length);
            assert!(text.starts_with(&full[..cut.offset]));
            assert!(text.contains(&full[cut.offset + cut.length..]));
            // Reading it all back in pieces gives the whole text.
            let mut offset = 0;
            let mut whole = String::new();
            while offset < full.len() {
                let (at, part) = budget::read(full, offset, 1 + rng.below(700));
                assert_eq!(at, offset);
                whole.push_str(part);
                offset += part.len();
            }
            assert_eq!(&whole, full);
        }
        assert_eq!(
            fitted.result.get("isError").is_some(),
            result["isError"] == json!(true)
        );
    }
}

#[test]
fn escape_stripping_is_total_and_idempotent() {
    let mut rng = Rng::new(0x5eed_0004);
    for _ in 0..CASES {
        let text = random::text(&mut rng, 40)
            + &random::text(&mut rng, 40)
                .replace('x', "\u{1b}[")
                .replace('.', "\u{1b}]");
        let once = ansi::strip(&text).into_owned();
        assert!(
            !once.contains('\u{1b}') && !once.contains('\u{9b}'),
            "{text:?} -> {once:?}"
        );
        assert_eq!(ansi::strip(&once), once);
    }
}
