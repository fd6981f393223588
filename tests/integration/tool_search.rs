//! `tools/search` end to end: exact names first (in a thousand realistic tools, and against tools
//! BM25 alone ranks higher), sensible ranking on realistic data, entries as `tools/list` gives
//! them, and bad params refused with the field named.

use serde_json::json;

use crate::support::{self, fixture, temp_dir, Sidecar};

#[test]
fn search_finds_exact_names_first_in_a_thousand_tools() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("big", support::realistic_tools(1000));
    // Exposed names, names on the server, any case; suffixed repeats included (whose words
    // match dozens of other tools equally well).
    // A name ending in `*` is a prefix: `create.entities` is not a valid name, so its exposed
    // name ends in a hash.
    for (query, expected) in [
        ("mcp__big__create_tree_7", "mcp__big__create_tree_7"),
        ("create_tree_7", "mcp__big__create_tree_7"),
        ("API-get-self_42", "mcp__big__API-get-self_42"),
        ("api-get-self_42", "mcp__big__API-get-self_42"),
        ("create.entities_3", "mcp__big__create_entities_3_*"),
        ("search_issues", "mcp__big__search_issues"),
        ("call mcp__big__fetch_80 please", "mcp__big__fetch_80"),
    ] {
        let found = s.call("tools/search", json!({"query": query, "limit": 3}));
        let first = &found["tools"][0];
        let name = first["name"].as_str().unwrap();
        match expected.strip_suffix('*') {
            Some(prefix) => assert!(name.starts_with(prefix), "{query}: {first}"),
            None => assert_eq!(name, expected, "{query}: {first}"),
        }
        assert_eq!(first["exact"], true, "{query}");
        assert!(found["tools"][1].get("exact").is_none(), "{query}");
    }
}

#[test]
fn an_exact_name_beats_tools_that_bm25_ranks_higher() {
    // `list` has a long description; its neighbours repeat the word in short ones, so BM25 alone
    // ranks them above it (its length is penalised, their term counts are not).
    let dir = temp_dir("exact");
    let file = dir.join("tools.json");
    let long = "Shows what the workspace holds: every folder, file and link below the root, \
        with sizes, owners and modification times, sorted by path, paged by cursor, \
        following the options given for hidden files and symbolic links.";
    let tools = json!([
        {"name": "list", "description": long, "inputSchema": {"type": "object"}},
        {"name": "list_items", "description": "List items: list every list item.", "inputSchema": {"type": "object"}},
        {"name": "list_users", "description": "List users of a list.", "inputSchema": {"type": "object"}},
    ]);
    std::fs::write(&file, tools.to_string()).unwrap();
    let mut s = Sidecar::initialized(json!({}));
    s.add("t", fixture(&["--tools-file", file.to_str().unwrap()]));
    let found = s.call("tools/search", json!({"query": "list"}));
    assert_eq!(found["tools"][0]["name"], "mcp__t__list", "{found}");
    assert_eq!(found["tools"][0]["exact"], true);
    assert_eq!(found["total"], 3);
}

#[test]
fn search_ranks_realistic_queries_sensibly() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("tools", support::realistic_tools(12));
    s.add("fx", fixture(&[]));
    for (query, expected) in [
        ("query a database", "mcp__tools__API-post-database-query"),
        ("edit a file", "mcp__tools__edit_file"),
        ("fetch a web page url", "mcp__tools__fetch"),
        ("search the issue tracker", "mcp__tools__search_issues"),
        (
            "append children blocks",
            "mcp__tools__API-patch-block-children",
        ),
        ("wait some milliseconds", "mcp__fx__sleep"),
        ("return the message unchanged", "mcp__fx__echo"),
    ] {
        let found = s.call("tools/search", json!({"query": query}));
        assert_eq!(found["tools"][0]["name"], expected, "{query}: {found}");
        let scores: Vec<f64> = found["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_f64().unwrap())
            .collect();
        assert!(
            scores.windows(2).all(|w| w[0] >= w[1]),
            "{query}: {scores:?}"
        );
    }
    // Entries are the listing's own, in the requested format; servers filter; limit and total.
    let found = s.call(
        "tools/search",
        json!({"query": "message", "servers": ["fx"], "format": "anthropic", "limit": 1}),
    );
    assert_eq!(found["tools"].as_array().unwrap().len(), 1);
    assert!(found["total"].as_u64().unwrap() >= 2);
    let tool = &found["tools"][0];
    assert_eq!(tool["server"], "fx");
    let listing = s.call("tools/list", json!({"format": "anthropic"}));
    let same = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool["name"])
        .unwrap();
    assert_eq!(tool["definition"], same["definition"]);
    assert_eq!(tool["tokens"], same["tokens"]);
}

#[test]
fn search_refuses_bad_params_with_the_field_named() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", fixture(&[]));
    for (params, field) in [
        (json!({"query": "  "}), "query"),
        (json!({"query": "x".repeat(4097)}), "query"),
        (json!({"query": "echo", "limit": 0}), "limit"),
        (json!({"query": "echo", "limit": 101}), "limit"),
    ] {
        let (code, error) = s.error_of("tools/search", params);
        assert_eq!(code, "INVALID_PARAMS");
        assert_eq!(error["data"]["field"], field, "{error}");
    }
    let (code, error) = s.error_of(
        "tools/search",
        json!({"query": "echo", "servers": ["nope"]}),
    );
    assert_eq!(code, "SERVER_NOT_FOUND");
    assert_eq!(error["data"]["server"], "nope");
    let (code, _) = s.error_of("tools/search", json!({"query": "echo", "typo": 1}));
    assert_eq!(code, "INVALID_PARAMS");
}
