//! End to end through the real binary and the fixture server: tool formats (gemini, strict) with
//! `conversionNotes`, results converted per format, `resultPolicy: "truncate"` with `results/read`,
//! and strict mode's `null` for an optional argument.

use serde_json::{json, Value};

use crate::support::{fixture, with_fields, Sidecar};

/// Adds the fixture as `name`, with `extra` config fields; it must come up ready.
fn add_fixture(host: &mut Sidecar, name: &str, extra: Value) {
    let status = host.add(name, with_fields(fixture(&[]), extra));
    assert_eq!(status["state"], "ready", "{status}");
}

/// Spawns the sidecar and initializes it with `params` (over `protocolVersion: 1`); returns the
/// `initialize` result.
fn start(params: Value) -> (Sidecar, Value) {
    let mut host = Sidecar::spawn();
    let init = host.call(
        "initialize",
        with_fields(json!({"protocolVersion": 1}), params),
    );
    (host, init)
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn gemini_format_and_conversion_notes() {
    let (mut host, init) = start(json!({"toolFormat": "gemini"}));
    assert_eq!(
        init["capabilities"]["toolFormats"],
        json!(["openai", "openai-responses", "anthropic", "gemini", "mcp"])
    );
    assert_eq!(
        init["capabilities"]["resultPolicies"],
        json!(["error", "truncate"])
    );
    add_fixture(&mut host, "fx", json!({}));
    let tools = host.call("tools/list", json!({}));
    for entry in tools["tools"].as_array().expect("tools") {
        assert!(entry["conversionNotes"].is_array(), "{entry}");
    }
    let echo = tool(&tools, "mcp__fx__echo");
    assert_eq!(
        echo["definition"],
        json!({
            "name": "mcp__fx__echo",
            "description": echo["definition"]["description"],
            "parameters": {
                "type": "OBJECT",
                "properties": {"message": {"type": "STRING", "description": "Text to return unchanged."}},
                "required": ["message"]
            }
        })
    );
    assert_eq!(
        echo["conversionNotes"],
        json!([{"action": "dropped", "path": "/additionalProperties", "reason": "Gemini's Schema has no `additionalProperties` field"}])
    );
    // A tool without parameters leaves them out.
    let image = tool(&tools, "mcp__fx__image");
    assert!(image["definition"].get("parameters").is_none());

    // The same catalog in another format: notes are per format, `[]` when nothing changed.
    let anthropic = host.call("tools/list", json!({"format": "anthropic"}));
    assert_eq!(
        tool(&anthropic, "mcp__fx__echo")["conversionNotes"],
        json!([])
    );
    assert_ne!(anthropic["fingerprint"], tools["fingerprint"]);

    // Results in the session's format: Gemini's functionResponse body, images as inlineData.
    let out = host.call("tools/call", json!({"name": "mcp__fx__image"}));
    assert_eq!(out["output"]["response"], json!({"output": "a 1x1 png"}));
    assert_eq!(
        out["output"]["parts"][0]["inlineData"]["mimeType"],
        "image/png"
    );
    let out = host.call(
        "tools/call",
        json!({"name": "mcp__fx__fail", "arguments": {"message": "nope"}}),
    );
    assert_eq!(out["isError"], true);
    assert_eq!(out["output"], json!({"response": {"error": "nope"}}));
    // Per call, another format.
    let out = host.call(
        "tools/call",
        json!({"name": "mcp__fx__image", "format": "openai-responses"}),
    );
    assert_eq!(out["output"][1]["type"], "input_image");
    assert!(out["output"][1]["image_url"]
        .as_str()
        .unwrap_or_default()
        .starts_with("data:image/png;base64,iVBOR"));
}

#[test]
fn strict_mode_and_optional_nulls() {
    let (mut host, _) = start(json!({"toolFormat": "openai", "strict": true}));
    add_fixture(&mut host, "fx", json!({}));
    let tools = host.call("tools/list", json!({}));
    let fail = tool(&tools, "mcp__fx__fail");
    assert_eq!(fail["definition"]["function"]["strict"], true);
    assert_eq!(
        fail["definition"]["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {"message": {"type": ["string", "null"], "description": "Error text (default \"fixture failure\")."}},
            "required": ["message"],
            "additionalProperties": false
        })
    );
    assert_eq!(fail["conversionNotes"][0]["path"], "/properties/message");
    // Not strict for this listing.
    let loose = host.call("tools/list", json!({"strict": false}));
    assert!(tool(&loose, "mcp__fx__fail")["definition"]["function"]
        .get("strict")
        .is_none());

    // What a strict model sends for "no message": null. The server's own schema says string, so
    // the sidecar drops the null and the server uses its default.
    let out = host.call(
        "tools/call",
        json!({"name": "mcp__fx__fail", "arguments": {"message": null}}),
    );
    assert_eq!(out["text"], "fixture failure");
    // A null for a required property is still an error.
    let response = host.request(
        "tools/call",
        json!({"name": "mcp__fx__echo", "arguments": {"message": null}}),
    );
    assert_eq!(response["error"]["data"]["code"], "INVALID_ARGUMENTS");
}

#[test]
fn truncate_policy_and_results_read() {
    let (mut host, _) = start(json!({}));
    add_fixture(
        &mut host,
        "cut",
        json!({"maxResultBytes": 4096, "resultPolicy": "truncate"}),
    );
    add_fixture(&mut host, "wall", json!({"maxResultBytes": 4096}));

    // Default policy: the hard wall of seed 000.
    let response = host.request(
        "tools/call",
        json!({"name": "mcp__wall__large", "arguments": {"bytes": 100000}}),
    );
    assert_eq!(response["error"]["data"]["code"], "RESULT_TOO_LARGE");

    // Within the budget: untouched, no `truncated`.
    let small = host.call(
        "tools/call",
        json!({"name": "mcp__cut__large", "arguments": {"bytes": 100}}),
    );
    assert_eq!(small["text"], "x".repeat(100));
    assert!(small.get("truncated").is_none());

    let out = host.call(
        "tools/call",
        json!({"name": "mcp__cut__large", "arguments": {"bytes": 100000}}),
    );
    let truncated = &out["truncated"];
    let handle = truncated["handle"].as_str().expect("handle").to_string();
    let offset = truncated["offset"].as_u64().expect("offset") as usize;
    let length = truncated["length"].as_u64().expect("length") as usize;
    assert_eq!(truncated["totalBytes"], 100000);
    assert!(truncated["originalBytes"].as_u64().expect("originalBytes") > 100000);
    let text = out["text"].as_str().expect("text");
    assert!(text.len() <= 4096, "{}", text.len());
    assert_eq!(
        text,
        format!(
            "{}\n[… {length} bytes cut; results/read handle={handle} offset={offset} length={length} totalBytes=100000 …]\n{}",
            "x".repeat(offset),
            "x".repeat(100000 - offset - length)
        )
    );
    assert_eq!(out["output"], out["text"]);

    // Read the cut part back in pages: nothing is lost.
    let mut at = offset;
    let mut read = 0;
    loop {
        let page = host.call(
            "results/read",
            json!({"handle": handle, "offset": at, "length": 30000}),
        );
        assert_eq!(page["offset"], at);
        assert_eq!(page["totalBytes"], 100000);
        let part = page["text"].as_str().expect("text");
        assert!(part.bytes().all(|b| b == b'x'));
        read += part.len();
        at += part.len();
        if page["eof"] == true {
            break;
        }
    }
    assert_eq!(read, 100000 - offset);
    // Default length is bounded; offset defaults to 0.
    let page = host.call("results/read", json!({"handle": handle}));
    assert_eq!(page["offset"], 0);
    assert_eq!(page["length"], 100000);

    for (params, code) in [
        (json!({"handle": "r-404"}), "RESULT_EXPIRED"),
        (json!({"handle": handle, "length": 0}), "INVALID_PARAMS"),
        (json!({"handle": handle, "bogus": 1}), "INVALID_PARAMS"),
    ] {
        let response = host.request("results/read", params);
        assert_eq!(response["error"]["data"]["code"], code, "{response}");
    }
    let expired = host.request("results/read", json!({"handle": "r-404"}));
    assert_eq!(expired["error"]["code"], -32024);
    assert_eq!(expired["error"]["data"]["handle"], "r-404");
}

#[test]
fn bad_result_policy_is_a_config_error() {
    let (mut host, _) = start(json!({}));
    let response = host.request(
        "servers/add",
        json!({"name": "x", "config": {"command": crate::support::fixture_bin(), "resultPolicy": "drop"}}),
    );
    assert_eq!(response["error"]["data"]["code"], "CONFIG_INVALID");
    assert_eq!(response["error"]["data"]["field"], "resultPolicy");
}
