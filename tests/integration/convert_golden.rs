//! Golden tests of tool-definition conversion: every tool saved under `tests/data/schemas/` (written
//! in the style of real servers: Notion's `$defs`/`oneOf`/`const`/type lists and recursion,
//! fastmcp's `additionalProperties: false` and `anyOf [T, null]`, draft-07 zod output, type arrays,
//! recursive `$ref`s) is converted to every format and compared byte for byte with
//! `tests/data/golden/<file>.<variant>.json`, and every converted definition is checked against
//! what the provider documents (`support::provider_rules`).
//!
//! After an intended change, `BLESS=1 cargo test --test integration convert_golden::` rewrites the golden files;
//! review the diff like code.

use mcp_sidecar::convert::{definition, fingerprint, NameTemplate, Options, ToolFormat};
use mcp_sidecar::names::ServerName;
use serde_json::{json, Value};

use crate::support;

/// (file suffix, format, strict)
const VARIANTS: [(&str, ToolFormat, bool); 6] = [
    ("openai", ToolFormat::Openai, false),
    ("openai-strict", ToolFormat::Openai, true),
    ("openai-responses", ToolFormat::OpenaiResponses, false),
    ("anthropic", ToolFormat::Anthropic, false),
    ("gemini", ToolFormat::Gemini, false),
    ("mcp", ToolFormat::Mcp, false),
];

/// Exposed names for one file's tools, as a catalog would assign them (server = file stem).
fn names(stem: &str, tools: &[Value]) -> Vec<String> {
    let server = ServerName::from(stem);
    let pairs: Vec<(&ServerName, &str)> = tools
        .iter()
        .map(|t| (&server, t["name"].as_str().unwrap_or_default()))
        .collect();
    NameTemplate::default().assign(&pairs)
}

fn convert_file(stem: &str, tools: &[Value], format: ToolFormat, strict: bool) -> Value {
    let entries: Vec<Value> = tools
        .iter()
        .zip(names(stem, tools))
        .map(|(tool, name)| {
            let converted = definition(format, Options { strict }, &name, tool);
            json!({
                "tool": tool["name"],
                "definition": converted.definition,
                "conversionNotes": converted.notes,
            })
        })
        .collect();
    Value::Array(entries)
}

#[test]
fn saved_schemas_are_valid_mcp_tools() {
    for (stem, tools) in support::schema_files() {
        let count = tools.len();
        let valid = mcp_sidecar::mcp::validate_tools(&stem, tools)
            .unwrap_or_else(|e| panic!("{stem}: {}", e.message));
        assert_eq!(valid.len(), count);
    }
}

#[test]
fn golden_definitions() {
    let bless = std::env::var_os("BLESS").is_some();
    let files = support::schema_files();
    assert!(
        files.len() >= 5,
        "expected the saved schemas under tests/data/schemas"
    );
    let mut mismatches = Vec::new();
    for (stem, tools) in &files {
        for (variant, format, strict) in VARIANTS {
            let actual = format!(
                "{}\n",
                serde_json::to_string_pretty(&convert_file(stem, tools, format, strict))
                    .unwrap_or_default()
            );
            let path = support::data_path(&format!("golden/{stem}.{variant}.json"));
            if bless {
                std::fs::write(&path, &actual)
                    .unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            if expected != actual {
                mismatches.push(format!(
                    "{} (run with BLESS=1 to see the new output as a diff)",
                    path.display()
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden files differ:\n{}",
        mismatches.join("\n")
    );
}

#[test]
fn every_converted_definition_follows_its_provider_rules() {
    for (stem, tools) in support::schema_files() {
        for (variant, format, strict) in VARIANTS {
            if format == ToolFormat::Mcp {
                continue;
            }
            for (tool, name) in tools.iter().zip(names(&stem, &tools)) {
                assert!(support::provider_rules::name_ok_everywhere(&name), "{name}");
                let converted = definition(format, Options { strict }, &name, tool);
                let errors = support::provider_rules::check(format.as_str(), &converted.definition);
                assert!(
                    errors.is_empty(),
                    "{stem} {variant} {}: {errors:#?}\n{}",
                    tool["name"],
                    serde_json::to_string_pretty(&converted.definition).unwrap_or_default()
                );
            }
        }
    }
}

#[test]
fn every_change_is_noted() {
    // Whenever the provider schema differs from the original, at least one note says why.
    for (stem, tools) in support::schema_files() {
        for (variant, format, strict) in VARIANTS {
            for (tool, name) in tools.iter().zip(names(&stem, &tools)) {
                let converted = definition(format, Options { strict }, &name, tool);
                let schema = match format {
                    ToolFormat::Openai => &converted.definition["function"]["parameters"],
                    ToolFormat::OpenaiResponses | ToolFormat::Gemini => {
                        &converted.definition["parameters"]
                    }
                    ToolFormat::Anthropic => &converted.definition["input_schema"],
                    ToolFormat::Mcp => &converted.definition["inputSchema"],
                };
                let original = &tool["inputSchema"];
                if schema != original && format != ToolFormat::Mcp {
                    let only_added_properties = {
                        let mut with = original.clone();
                        with["properties"] = with.get("properties").cloned().unwrap_or(json!({}));
                        &with == schema
                    };
                    assert!(
                        !converted.notes.is_empty() || only_added_properties,
                        "{stem} {variant} {}: changed without a note",
                        tool["name"]
                    );
                }
            }
        }
    }
}

/// A Notion-sized tool list (about 80 KB of definitions): the output is byte-stable and the
/// fingerprint moves exactly when a definition does.
#[test]
fn large_tool_sets_are_byte_stable() {
    let files = support::schema_files();
    let mut tools: Vec<Value> = Vec::new();
    for i in 0..8 {
        for (_, file_tools) in &files {
            for tool in file_tools {
                let mut tool = tool.clone();
                tool["name"] =
                    Value::from(format!("{}-{i}", tool["name"].as_str().unwrap_or_default()));
                tools.push(tool);
            }
        }
    }
    let names = names("notion", &tools);
    for (_, format, strict) in VARIANTS {
        let render = |tools: &[Value]| -> Vec<Value> {
            tools
                .iter()
                .zip(&names)
                .map(|(t, n)| definition(format, Options { strict }, n, t).definition)
                .collect()
        };
        let first = render(&tools);
        let bytes = serde_json::to_string(&first).unwrap_or_default();
        if format == ToolFormat::Openai && !strict {
            assert!(bytes.len() > 80_000, "only {} bytes", bytes.len());
        }
        // Same input (even re-parsed with other whitespace): same bytes, same fingerprint.
        let reparsed: Vec<Value> =
            serde_json::from_str(&serde_json::to_string_pretty(&tools).unwrap_or_default())
                .unwrap_or_default();
        let again = render(&reparsed);
        assert_eq!(serde_json::to_string(&again).unwrap_or_default(), bytes);
        assert_eq!(fingerprint(&first), fingerprint(&again));
        // Something that is not part of any provider definition: same fingerprint.
        let mut annotated = tools.clone();
        annotated[3]["annotations"] = json!({"readOnlyHint": true});
        if format != ToolFormat::Mcp {
            assert_eq!(
                fingerprint(&render(&annotated)),
                fingerprint(&first),
                "{format}"
            );
        }
        // One description changed: a different fingerprint.
        let mut edited = tools.clone();
        edited[7]["description"] = Value::from("changed");
        assert_ne!(
            fingerprint(&render(&edited)),
            fingerprint(&first),
            "{format}"
        );
    }
}
