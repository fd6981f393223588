//! `tools/call` and `tools/list`: result fields, the four provider formats, tool errors versus
//! JSON-RPC errors, argument validation, result size limits, byte-stable listings and name templates.

use serde_json::{json, Value};

use crate::support::{fixture, Sidecar};

const ECHO_DESCRIPTION: &str = "Returns the message unchanged, plus its length in characters.";
const PNG_1X1_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn echo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"message": {"type": "string", "description": "Text to return unchanged."}},
        "required": ["message"],
        "additionalProperties": false,
    })
}

fn with_fixture(init: Value) -> Sidecar {
    let mut s = Sidecar::initialized(init);
    let status = s.add("fx", fixture(&[]));
    assert_eq!(status["state"], "ready", "{status}");
    s
}

fn echo(s: &mut Sidecar, name: &str, message: &str) -> Value {
    s.call(
        "tools/call",
        json!({"name": name, "arguments": {"message": message}}),
    )
}

/// The listing entry of exposed tool `name`.
fn entry(listing: &Value, name: &str) -> Value {
    let tools = listing["tools"].as_array().unwrap();
    tools
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("{name} not listed: {listing}"))
}

#[test]
fn echo_result_has_text_content_structured_output_and_routing_fields() {
    let mut s = with_fixture(json!({}));
    let r = echo(&mut s, "mcp__fx__echo", "héllo");
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["text"], "héllo", "{r}");
    assert_eq!(
        r["content"],
        json!([{"type": "text", "text": "héllo"}]),
        "{r}"
    );
    assert_eq!(
        r["structuredContent"],
        json!({"message": "héllo", "length": 5}),
        "{r}"
    );
    assert_eq!(r["output"], "héllo", "openai output is a string: {r}");
    assert_eq!(r["server"], "fx", "{r}");
    assert_eq!(r["tool"], "echo", "{r}");
    assert!(r["durationMs"].as_f64().is_some_and(|d| d >= 0.0), "{r}");
}

#[test]
fn tools_list_converts_definitions_to_each_provider_format() {
    let mut s = with_fixture(json!({}));
    let name = "mcp__fx__echo";
    let gemini_parameters = json!({
        "type": "OBJECT",
        "properties": {"message": {"type": "STRING", "description": "Text to return unchanged."}},
        "required": ["message"],
    });
    let no_notes = json!([]);
    let gemini_notes = json!([{
        "action": "dropped",
        "path": "/additionalProperties",
        "reason": "Gemini's Schema has no `additionalProperties` field",
    }]);
    let expected = [
        (
            "openai",
            json!({"type": "function", "function": {"name": name, "description": ECHO_DESCRIPTION, "parameters": echo_schema()}}),
            &no_notes,
        ),
        (
            "openai-responses",
            json!({"type": "function", "name": name, "description": ECHO_DESCRIPTION, "parameters": echo_schema(), "strict": false}),
            &no_notes,
        ),
        (
            "anthropic",
            json!({"name": name, "description": ECHO_DESCRIPTION, "input_schema": echo_schema()}),
            &no_notes,
        ),
        (
            "gemini",
            json!({"name": name, "description": ECHO_DESCRIPTION, "parameters": gemini_parameters}),
            &gemini_notes,
        ),
        (
            "mcp",
            json!({"name": name, "title": "Echo", "description": ECHO_DESCRIPTION, "inputSchema": echo_schema(), "annotations": {"readOnlyHint": true}}),
            &no_notes,
        ),
    ];
    let mut fingerprints = Vec::new();
    for (format, definition, notes) in expected {
        let listing = s.call("tools/list", json!({"format": format}));
        let e = entry(&listing, name);
        assert_eq!(e["definition"], definition, "{format}");
        assert_eq!(&e["conversionNotes"], notes, "{format}");
        assert_eq!(
            (&e["server"], &e["tool"], &e["title"], &e["readOnly"]),
            (&json!("fx"), &json!("echo"), &json!("Echo"), &json!(true))
        );
        let tools = listing["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 7);
        for t in tools {
            assert!(
                t["conversionNotes"].is_array(),
                "{format}: every entry has notes: {t}"
            );
        }
        fingerprints.push(listing["fingerprint"].as_str().unwrap().to_owned());
    }
    fingerprints.sort();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 5, "each format has its own fingerprint");
    // No format means the session's default (openai, not strict, here).
    let default = s.call("tools/list", json!({}));
    assert_eq!(
        entry(&default, name)["definition"],
        expected_openai(name),
        "{default}"
    );

    // Gemini leaves `parameters` out for a tool that takes none, and says so.
    let gemini = s.call("tools/list", json!({"format": "gemini"}));
    let image = entry(&gemini, "mcp__fx__image");
    assert_eq!(
        image["definition"],
        json!({"name": "mcp__fx__image", "description": "Returns a text block and a 1x1 PNG image block."}),
        "{image}"
    );
    let image_notes = image["conversionNotes"].as_array().unwrap();
    assert_eq!(image_notes.len(), 2, "{image}");
    assert_eq!(
        (&image_notes[1]["action"], &image_notes[1]["path"]),
        (&json!("dropped"), &json!("")),
        "{image}"
    );

    // Strict for one listing: openai gets `strict: true` and an optional property made required
    // and nullable (noted); the fingerprint covers definitions, so it differs.
    let strict = s.call("tools/list", json!({"format": "openai", "strict": true}));
    let fail = entry(&strict, "mcp__fx__fail");
    assert_eq!(
        fail["definition"]["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {"message": {"type": ["string", "null"], "description": "Error text (default \"fixture failure\")."}},
            "required": ["message"],
            "additionalProperties": false,
        }),
        "{fail}"
    );
    assert_eq!(fail["definition"]["function"]["strict"], true, "{fail}");
    assert_eq!(
        fail["conversionNotes"],
        json!([{
            "action": "rewritten",
            "path": "/properties/message",
            "reason": "optional property made required and nullable (OpenAI strict mode requires every property); a null argument is dropped before the call",
        }]),
        "{fail}"
    );
    let echo = entry(&strict, name);
    assert_eq!(echo["definition"]["function"]["strict"], true, "{echo}");
    assert_eq!(echo["conversionNotes"], json!([]), "{echo}");
    assert_ne!(strict["fingerprint"], default["fingerprint"]);
    let strict_responses = s.call(
        "tools/list",
        json!({"format": "openai-responses", "strict": true}),
    );
    assert_eq!(entry(&strict_responses, name)["definition"]["strict"], true);
    // Strict is an OpenAI option: other formats ignore it.
    for format in ["anthropic", "gemini", "mcp"] {
        assert_eq!(
            s.call("tools/list", json!({"format": format, "strict": true})),
            s.call("tools/list", json!({"format": format})),
            "{format}"
        );
    }
}

/// The openai definition of the fixture's echo tool when strict mode was not asked for: no `strict`.
fn expected_openai(name: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "description": ECHO_DESCRIPTION, "parameters": echo_schema()}})
}

#[test]
fn anthropic_session_gets_anthropic_definitions_and_result_blocks() {
    let mut s = with_fixture(json!({"toolFormat": "anthropic"}));
    let listing = s.call("tools/list", json!({}));
    assert_eq!(
        entry(&listing, "mcp__fx__echo")["definition"]["input_schema"],
        echo_schema()
    );
    let r = echo(&mut s, "mcp__fx__echo", "hi");
    assert_eq!(r["output"], json!([{"type": "text", "text": "hi"}]), "{r}");
    let r = s.call("tools/call", json!({"name": "mcp__fx__image"}));
    assert_eq!(
        r["output"],
        json!([
            {"type": "text", "text": "a 1x1 png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_1X1_BASE64}},
        ]),
        "{r}"
    );
}

#[test]
fn tool_error_is_a_result_with_is_error_not_a_json_rpc_error() {
    let mut s = with_fixture(json!({}));
    let r = s.request(
        "tools/call",
        json!({"name": "mcp__fx__fail", "arguments": {"message": "boom"}}),
    );
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["text"], "boom", "{r}");
}

#[test]
fn missing_required_argument_fails_invalid_arguments_with_violation_paths() {
    let mut s = with_fixture(json!({}));
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {}}),
    );
    assert_eq!(code, "INVALID_ARGUMENTS", "{e}");
    assert_eq!(e["code"], -32021, "{e}");
    assert_eq!(e["data"]["tool"], "echo", "{e}");
    assert_eq!(e["data"]["name"], "mcp__fx__echo", "{e}");
    let violations = e["data"]["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{e}");
    assert_eq!(violations[0]["path"], "/", "{e}");
    assert!(
        violations[0]["message"]
            .as_str()
            .unwrap()
            .contains("message"),
        "{e}"
    );
}

#[test]
fn argument_of_wrong_type_fails_invalid_arguments_at_its_path() {
    let mut s = with_fixture(json!({}));
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": 5}}),
    );
    assert_eq!(code, "INVALID_ARGUMENTS", "{e}");
    assert_eq!(e["data"]["violations"][0]["path"], "/message", "{e}");
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": "hi"}),
    );
    assert_eq!(code, "INVALID_ARGUMENTS", "non-object arguments: {e}");
}

#[test]
fn unknown_tool_fails_tool_not_found() {
    let mut s = with_fixture(json!({}));
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__nope", "arguments": {}}),
    );
    assert_eq!(code, "TOOL_NOT_FOUND", "{e}");
    // PROTOCOL.md §12: `data.name` (the exposed name) only.
    assert_eq!(e["data"]["name"], "mcp__fx__nope", "{e}");
    assert!(e["data"].get("tool").is_none(), "{e}");
}

#[test]
fn result_over_default_limit_fails_result_too_large_and_server_stays_ready() {
    let mut s = with_fixture(json!({}));
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__large", "arguments": {"bytes": 300_000}}),
    );
    assert_eq!(code, "RESULT_TOO_LARGE", "{e}");
    assert_eq!(e["data"]["setting"], "maxResultBytes", "{e}");
    assert_eq!(e["data"]["limit"], 256 * 1024, "{e}");
    assert_eq!(e["data"]["name"], "mcp__fx__large", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("maxResultBytes"),
        "{e}"
    );
    assert!(e["data"]["size"].as_u64().unwrap() > 300_000, "{e}");
    let list = s.call("servers/list", json!({}));
    assert_eq!(list["servers"][0]["state"], "ready", "{list}");
    assert_eq!(
        echo(&mut s, "mcp__fx__echo", "still here")["text"],
        "still here"
    );
}

#[test]
fn configured_max_result_bytes_is_enforced() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[]);
    config["maxResultBytes"] = json!(1024);
    s.add("fx", config);
    let small = s.call(
        "tools/call",
        json!({"name": "mcp__fx__large", "arguments": {"bytes": 500}}),
    );
    assert_eq!(small["text"].as_str().unwrap().len(), 500);
    let (code, e) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__large", "arguments": {"bytes": 2000}}),
    );
    assert_eq!(code, "RESULT_TOO_LARGE", "{e}");
    assert_eq!(e["data"]["limit"], 1024, "{e}");
}

#[test]
fn tools_list_is_byte_stable_whatever_the_start_order() {
    let listing = |order: [&str; 2]| {
        let mut s = Sidecar::initialized(json!({}));
        for name in order {
            s.add(name, fixture(&["--name", name]));
        }
        s.call("tools/list", json!({}))
    };
    let ab = listing(["a", "b"]);
    let ba = listing(["b", "a"]);
    assert_eq!(ab["tools"].as_array().unwrap().len(), 14);
    assert_eq!(
        serde_json::to_string(&ab).unwrap(),
        serde_json::to_string(&ba).unwrap()
    );
    assert_eq!(ab["fingerprint"], ba["fingerprint"]);
    let names: Vec<&str> = ab["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools are listed sorted by name");
}

#[test]
fn tools_list_servers_filter_keeps_only_those_servers() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("a", fixture(&[]));
    s.add("b", fixture(&[]));
    let all = s.call("tools/list", json!({}));
    let only_a = s.call("tools/list", json!({"servers": ["a"]}));
    let tools = only_a["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 7, "{only_a}");
    assert!(tools.iter().all(|t| t["server"] == "a"), "{only_a}");
    assert_ne!(only_a["fingerprint"], all["fingerprint"]);
    let (code, e) = s.error_of("tools/list", json!({"servers": ["a", "nope"]}));
    assert_eq!(code, "SERVER_NOT_FOUND", "{e}");
}

#[test]
fn name_template_and_max_length_yield_provider_safe_names_that_route() {
    let mut s =
        Sidecar::initialized(json!({"nameTemplate": "{server}_{tool}", "maxNameLength": 16}));
    s.add("weather-service", fixture(&[]));
    s.add("fs", fixture(&[]));
    let listing = s.call("tools/list", json!({}));
    let tools = listing["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 14);
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for name in &names {
        let ok = (1..=16).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        assert!(ok, "{name:?} does not match ^[a-zA-Z0-9_-]{{1,16}}$");
    }
    assert!(
        names.contains(&"fs_echo"),
        "a name that fits is kept as rendered: {names:?}"
    );
    names.dedup();
    assert_eq!(names.len(), 14, "names must be unique");
    for server in ["weather-service", "fs"] {
        let exposed = tools
            .iter()
            .find(|t| t["server"] == server && t["tool"] == "echo")
            .unwrap()["name"]
            .as_str()
            .unwrap();
        assert_eq!(
            tools.iter().find(|t| t["name"] == exposed).unwrap()["definition"]["function"]["name"],
            exposed
        );
        let r = echo(&mut s, exposed, server);
        assert_eq!(
            (&r["text"], &r["server"], &r["tool"]),
            (&json!(server), &json!(server), &json!("echo")),
            "{r}"
        );
    }
}
