//! Big tool sets end to end, against the real binary and the fixture serving realistic tools
//! (`--tools-file tests/data/schemas`, cycled): listings cached per tool set and never stale after a
//! change (add, remove, restart, `list_changed`), token totals, deferral, and the `search_tools`
//! meta-tool. `tools/search` itself: `tool_search`.

use serde_json::{json, Value};

use crate::support::{self, data_path, fixture, temp_dir, with_fields, Sidecar};

/// The formats and strict modes every cache check goes through.
const VARIANTS: [(&str, bool); 7] = [
    ("openai", false),
    ("openai", true),
    ("openai-responses", false),
    ("openai-responses", true),
    ("anthropic", false),
    ("gemini", false),
    ("mcp", false),
];

fn names(listing: &Value) -> Vec<String> {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The definitions' descriptions of one server's tools in a listing.
fn descriptions(listing: &Value) -> Vec<String> {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let d = &t["definition"];
            d.get("function")
                .unwrap_or(d)
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// Every variant's listing (which fills every cache).
fn every_listing(s: &mut Sidecar) -> Vec<Value> {
    VARIANTS
        .iter()
        .map(|(format, strict)| s.call("tools/list", json!({"format": format, "strict": strict})))
        .collect()
}

#[test]
fn listings_are_byte_identical_while_the_tool_set_is_the_same() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("big", support::realistic_tools(300));
    for (format, strict) in VARIANTS {
        let params = json!({"format": format, "strict": strict});
        let first = s.request("tools/list", params.clone());
        let second = s.request("tools/list", params.clone());
        assert_eq!(
            first["result"], second["result"],
            "{format} strict={strict}"
        );
        assert_eq!(names(&first["result"]).len(), 300);
    }
    // A status change that leaves the tools alone (a second server comes and goes) gives the same
    // answer, fingerprint included.
    let before = every_listing(&mut s);
    s.add("other", fixture(&[]));
    s.call("servers/remove", json!({"name": "other"}));
    assert_eq!(every_listing(&mut s), before);
}

#[test]
fn no_listing_is_stale_after_add_remove_or_restart() {
    let dir = temp_dir("stale");
    let file = dir.join("tools.json");
    let tool = |description: &str| {
        json!([{"name": "lookup", "description": description,
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}])
    };
    std::fs::write(&file, tool("first version").to_string()).unwrap();
    let mut s = Sidecar::initialized(json!({}));
    s.add("a", fixture(&["--tools-file", file.to_str().unwrap()]));
    let first = every_listing(&mut s);
    for listing in &first {
        assert_eq!(names(listing), ["mcp__a__lookup"]);
        assert_eq!(descriptions(listing), ["first version"]);
    }
    // Added: every cached variant shows the new server's tools.
    s.add("b", fixture(&[]));
    for listing in every_listing(&mut s) {
        assert_eq!(names(&listing).len(), 8, "{listing}");
        assert!(names(&listing).contains(&"mcp__b__echo".to_owned()));
    }
    // Removed: gone from every variant.
    s.call("servers/remove", json!({"name": "b"}));
    assert_eq!(every_listing(&mut s), first);
    // Restarted with a changed definition (same name): every variant shows the new one.
    std::fs::write(&file, tool("second version").to_string()).unwrap();
    s.call("servers/restart", json!({"name": "a"}));
    for (listing, before) in every_listing(&mut s).iter().zip(&first) {
        assert_eq!(descriptions(listing), ["second version"]);
        assert_ne!(listing["fingerprint"], before["fingerprint"]);
    }
}

#[test]
fn no_listing_is_stale_after_list_changed() {
    let dir = temp_dir("list-changed");
    let file = dir.join("tools.json");
    let tools = |names: &[&str]| {
        Value::from(
            names
                .iter()
                .map(|n| json!({"name": n, "description": format!("{n} things"), "inputSchema": {"type": "object"}}))
                .collect::<Vec<_>>(),
        )
    };
    std::fs::write(&file, tools(&["alpha", "beta"]).to_string()).unwrap();
    let mut s = Sidecar::initialized(json!({}));
    let config = fixture(&[
        "--tools-file",
        file.to_str().unwrap(),
        "--tools-list-changed",
    ]);
    s.add("srv", config);
    for listing in every_listing(&mut s) {
        assert_eq!(names(&listing), ["mcp__srv__alpha", "mcp__srv__beta"]);
    }
    let searched = s.call("tools/search", json!({"query": "gamma"}));
    assert_eq!(searched["total"], 0);
    // The server's tools change; its first call makes it announce list_changed.
    std::fs::write(&file, tools(&["alpha", "gamma"]).to_string()).unwrap();
    s.call("tools/call", json!({"name": "mcp__srv__alpha"}));
    let changed = s.notification("notifications/tools/changed", |p| {
        p["added"] == json!(["mcp__srv__gamma"])
    });
    assert_eq!(changed["params"]["removed"], json!(["mcp__srv__beta"]));
    for listing in every_listing(&mut s) {
        assert_eq!(names(&listing), ["mcp__srv__alpha", "mcp__srv__gamma"]);
    }
    // The session listing's fingerprint is the one the notification carried.
    let listing = s.call("tools/list", json!({}));
    assert_eq!(listing["fingerprint"], changed["params"]["fingerprint"]);
    // The search index follows the tool set too.
    let searched = s.call("tools/search", json!({"query": "gamma"}));
    assert_eq!(searched["tools"][0]["name"], "mcp__srv__gamma");
    assert!(s.call("tools/search", json!({"query": "beta"}))["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "mcp__srv__beta"));
}

#[test]
fn token_totals_add_up_per_server_and_overall() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("big", support::realistic_tools(40));
    s.add("fx", fixture(&[]));
    for (format, strict) in VARIANTS {
        let listing = s.call("tools/list", json!({"format": format, "strict": strict}));
        let mut per_server = std::collections::BTreeMap::<String, u64>::new();
        for tool in listing["tools"].as_array().unwrap() {
            let tokens = tool["tokens"].as_u64().unwrap();
            // The documented method: compact JSON bytes / 4.28, rounded up.
            let bytes = tool["definition"].to_string().len() as u64;
            assert_eq!(tokens, (bytes * 100).div_ceil(428), "{format}: {tool}");
            *per_server
                .entry(tool["server"].as_str().unwrap().into())
                .or_default() += tokens;
        }
        assert_eq!(listing["tokens"]["servers"], json!(per_server), "{format}");
        assert_eq!(
            listing["tokens"]["total"],
            json!(per_server.values().sum::<u64>())
        );
    }
    // A filtered listing counts only its servers.
    let only = s.call("tools/list", json!({"servers": ["fx"]}));
    assert_eq!(
        only["tokens"]["servers"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["fx"]
    );
}

#[test]
fn deferral_follows_session_server_and_listing() {
    let mut s = Sidecar::initialized(json!({"toolFormat": "openai-responses", "defer": true}));
    s.add(
        "big",
        with_fields(
            support::realistic_tools(30),
            json!({"args": [
                "--tools-file", data_path("schemas").to_str().unwrap(), "--tools-count", "30",
                "--instructions", "Issue tracker, Notion pages and files."
            ]}),
        ),
    );
    s.add("core", with_fields(fixture(&[]), json!({"defer": false})));
    let listing = s.call("tools/list", json!({}));
    let provider = listing["providerTools"].as_array().unwrap();
    // core's 7 tools loaded, big's in one namespace, then OpenAI's tool search.
    assert_eq!(provider.len(), 7 + 1 + 1);
    assert!(provider[..7]
        .iter()
        .all(|t| t["type"] == "function" && t.get("defer_loading").is_none()));
    assert_eq!(provider[7]["type"], "namespace");
    assert_eq!(provider[7]["name"], "big");
    assert_eq!(
        provider[7]["description"],
        "Issue tracker, Notion pages and files."
    );
    assert_eq!(provider[7]["tools"].as_array().unwrap().len(), 30);
    assert!(provider[7]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["defer_loading"] == true));
    assert_eq!(provider[8], json!({"type": "tool_search"}));
    for tool in listing["tools"].as_array().unwrap() {
        assert_eq!(
            tool.get("deferred").is_some(),
            tool["server"] == "big",
            "{tool}"
        );
    }
    let tokens = &listing["tokens"];
    assert!(tokens["upfront"].as_u64().unwrap() < tokens["total"].as_u64().unwrap() / 4);
    assert_eq!(tokens["deferred"], tokens["servers"]["big"]);
    // The fingerprint is over providerTools.
    let texts: Vec<String> = provider.iter().map(|t| t.to_string()).collect();
    assert_eq!(
        listing["fingerprint"],
        mcp_sidecar::convert::fingerprint_canonical(texts.iter().map(String::as_str))
    );
    // `defer: false` for one listing: today's shape exactly.
    let full = s.call("tools/list", json!({"defer": false}));
    assert!(full.get("providerTools").is_none());
    assert!(full["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t.get("deferred").is_none()));
    let definitions: Vec<Value> = full["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["definition"].clone())
        .collect();
    assert_eq!(
        full["fingerprint"],
        mcp_sidecar::convert::fingerprint(&definitions)
    );
}

#[test]
fn a_token_budget_defers_once_exceeded() {
    let mut s = Sidecar::initialized(json!({"toolFormat": "anthropic", "deferAboveTokens": 2000}));
    s.add("fx", fixture(&[]));
    let small = s.call("tools/list", json!({}));
    assert!(small["tokens"]["total"].as_u64().unwrap() < 2000);
    assert!(small.get("providerTools").is_none());
    s.add("big", support::realistic_tools(30));
    let changed = s.notification("notifications/tools/changed", |p| {
        p["added"].as_array().is_some_and(|a| a.len() == 30)
    });
    let big = s.call("tools/list", json!({}));
    assert!(big["tokens"]["total"].as_u64().unwrap() > 2000);
    let provider = big["providerTools"].as_array().unwrap();
    assert_eq!(provider.len(), 37 + 1);
    assert!(provider[..37].iter().all(|t| t["defer_loading"] == true));
    assert_eq!(
        provider[37],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    assert_eq!(big["fingerprint"], changed["params"]["fingerprint"]);
}

#[test]
fn search_tools_meta_tool_loads_definitions_end_to_end() {
    let mut s = Sidecar::initialized(json!({"toolFormat": "openai", "defer": true}));
    s.add("big", support::realistic_tools(100));
    let listing = s.call("tools/list", json!({}));
    let provider = listing["providerTools"].as_array().unwrap();
    // Nothing loaded but the meta-tool, named by the template, describing what can be found.
    assert_eq!(provider.len(), 1);
    let meta = &provider[0]["function"];
    assert_eq!(meta["name"], "mcp__sidecar__search_tools");
    assert!(meta["description"]
        .as_str()
        .unwrap()
        .contains("big (100 tools)"));
    assert!(listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != meta["name"]));
    // The model calls it; the result carries the definitions in the session format.
    let result = s.call(
        "tools/call",
        json!({"name": "mcp__sidecar__search_tools", "arguments": {"query": "edit a file", "limit": 2}}),
    );
    assert_eq!(result["isError"], false);
    assert_eq!(result["server"], "sidecar");
    assert_eq!(result["tool"], "search_tools");
    let loaded = result["structuredContent"]["tools"].as_array().unwrap();
    assert_eq!(loaded.len(), 2);
    let name = loaded[0]["function"]["name"].as_str().unwrap().to_owned();
    assert!(name.starts_with("mcp__big__edit_file"), "{name}");
    assert!(result["text"].as_str().unwrap().contains(&name));
    // Same definition as the full listing's.
    let full = s.call("tools/list", json!({"defer": false}));
    let entry = full["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap();
    assert_eq!(entry["definition"], loaded[0]);
    // Exact names through the meta-tool too, and what it loads is callable at once.
    let exact = s.call(
        "tools/call",
        json!({"name": "mcp__sidecar__search_tools", "arguments": {"query": "fetch_5", "limit": 1}}),
    );
    assert_eq!(
        exact["structuredContent"]["tools"][0]["function"]["name"],
        "mcp__big__fetch_5"
    );
    let called = s.call(
        "tools/call",
        json!({"name": "mcp__big__fetch_5", "arguments": {"url": "https://example.com/"}}),
    );
    assert_eq!(called["isError"], false, "{called}");
    assert!(called["text"]
        .as_str()
        .unwrap()
        .starts_with("called fetch_5 with"));
    // No match is a result, not an error.
    let none = s.call(
        "tools/call",
        json!({"name": "mcp__sidecar__search_tools", "arguments": {"query": "zyxwvu"}}),
    );
    assert_eq!(none["structuredContent"]["tools"], json!([]));
    for arguments in [
        json!({}),
        json!({"query": 3}),
        json!({"query": "x", "limit": 21}),
        json!({"query": "x", "other": 1}),
    ] {
        let (code, error) = s.error_of(
            "tools/call",
            json!({"name": "mcp__sidecar__search_tools", "arguments": arguments}),
        );
        assert_eq!(code, "INVALID_ARGUMENTS", "{arguments}");
        assert_eq!(error["data"]["tool"], "search_tools");
    }
}

#[test]
fn the_defer_field_reads_in_every_dialect_and_is_checked() {
    let mut s = Sidecar::initialized(json!({"toolFormat": "anthropic"}));
    let loaded = s.call(
        "servers/load",
        json!({"json": {"mcpServers": {"lazy": {"command": support::fixture_bin(), "defer": true}}}}),
    );
    assert_eq!(loaded["added"][0]["state"], "ready", "{loaded}");
    let listing = s.call("tools/list", json!({}));
    assert!(listing["providerTools"].as_array().unwrap()[..7]
        .iter()
        .all(|t| t["defer_loading"] == true));
    let (code, error) = s.error_of(
        "servers/add",
        json!({"name": "bad", "config": with_fields(fixture(&[]), json!({"defer": "yes"}))}),
    );
    assert_eq!(code, "CONFIG_INVALID");
    assert_eq!(error["data"]["field"], "defer");
}
