//! Resources through the real binary and fixture servers: one listing over many servers with the
//! sidecar's cursor, the page cap, templates, reads converted like tool results and held to
//! `maxResultBytes`, subscriptions that survive a restart, list changes, and resources as tools.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::support::*;

/// A fixture with `--surface` and `args`, a short restart backoff, and `extra` config fields.
pub(crate) fn surface(args: &[&str], extra: Value) -> Value {
    let mut all = vec!["--surface"];
    all.extend_from_slice(args);
    with_fields(
        fixture(&all),
        with_fields(json!({"restartBackoffMs": 20}), extra),
    )
}

/// `emit {kind…}` on server `server`, waiting for its answer's text.
pub(crate) fn emit(s: &mut Sidecar, server: &str, args: Value) -> String {
    let r = s.call(
        "tools/call",
        json!({"name": format!("mcp__{server}__emit"), "arguments": args}),
    );
    r["text"].as_str().unwrap_or_default().to_owned()
}

/// What the server was told (`emit {kind: "state"}`): `{logLevel, subscriptions}`.
pub(crate) fn state(s: &mut Sidecar, server: &str) -> Value {
    serde_json::from_str(&emit(s, server, json!({"kind": "state"}))).unwrap()
}

fn uris(items: &Value) -> Vec<(String, String)> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["server"].as_str().unwrap().to_owned(),
                r["uri"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Four servers: one with 603 resources (pages of 100), one with 3, one without the capability,
/// one that declares it but answers "method not found". The host pages through the sidecar's
/// cursor: the first page ends at the downstream page boundary past 500 items, the second holds
/// the rest in server order, and nothing is listed twice or left out.
#[test]
fn resources_of_many_servers_page_through_the_sidecars_cursor() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("a", surface(&["--resources", "600"], json!({})));
    s.add("b", surface(&[], json!({})));
    s.add("c", fixture(&[]));
    s.add("d", fixture(&["--capabilities-only"]));
    let first = s.call("resources/list", json!({}));
    assert_eq!(
        first["resources"].as_array().unwrap().len(),
        500,
        "five pages of a"
    );
    assert!(first.get("errors").is_none(), "{first}");
    let cursor = first["nextCursor"]
        .as_str()
        .expect("more to come")
        .to_owned();
    let second = s.call("resources/list", json!({"cursor": cursor}));
    assert!(second.get("nextCursor").is_none(), "{second}");
    let mut all = uris(&first["resources"]);
    all.extend(uris(&second["resources"]));
    assert_eq!(all.len(), 603 + 3);
    assert_eq!(
        all.iter().collect::<BTreeSet<_>>().len(),
        all.len(),
        "no duplicates"
    );
    assert!(all[..603].iter().all(|(server, _)| server == "a"));
    assert_eq!(
        all[603..],
        [
            ("b".into(), "fixture://text/readme".into()),
            ("b".into(), "fixture://blob/pixel".into()),
            ("b".into(), "fixture://blob/bytes".into()),
        ]
    );
    // Only one server; a cursor is good for its own list and `server` param only.
    let only_b = s.call("resources/list", json!({"server": "b"}));
    assert_eq!(uris(&only_b["resources"]).len(), 3);
    for (params, why) in [
        (
            json!({"cursor": cursor, "server": "a"}),
            "another server param",
        ),
        (json!({"cursor": "bm90IGEgY3Vyc29y"}), "not a cursor"),
    ] {
        let (code, e) = s.error_of("resources/list", params);
        assert_eq!(
            (code.as_str(), &e["data"]["field"]),
            ("INVALID_PARAMS", &json!("cursor")),
            "{why}: {e}"
        );
    }
    let (code, _) = s.error_of("prompts/list", json!({"cursor": cursor}));
    assert_eq!(code, "INVALID_PARAMS", "a resources cursor for prompts");
    let (code, _) = s.error_of("resources/list", json!({"server": "nope"}));
    assert_eq!(code, "SERVER_NOT_FOUND");
}

/// A server whose `nextCursor` never ends is cut after the page cap, reported in `errors`; the
/// other servers are listed all the same.
#[test]
fn a_cursor_that_never_ends_is_cut_at_the_page_cap() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("a", surface(&["--resource-cursor-loop"], json!({})));
    s.add("b", surface(&[], json!({})));
    let page = s.call("resources/list", json!({}));
    assert_eq!(uris(&page["resources"]).len(), 3, "{page}");
    let errors = page["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{page}");
    assert_eq!(errors[0]["server"], "a");
    assert_eq!(errors[0]["error"]["data"]["code"], "PROTOCOL_ERROR");
    assert!(
        errors[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("64 pages"),
        "{page}"
    );
}

/// Templates are listed; a read is converted like a tool result (text, an image carried natively,
/// secrets masked), a missing resource is the server's own error, a read over `maxResultBytes`
/// fails or — under `resultPolicy: "truncate"` — is cut with its full text kept for
/// `results/read`; a server without resources is not asked (NOT_SUPPORTED).
#[test]
fn reads_are_converted_masked_and_held_to_the_result_budget() {
    let mut s = Sidecar::initialized(json!({}));
    let secret = "hush-hush-value-1234";
    s.add(
        "fx",
        surface(
            &[],
            json!({"env": {"API_TOKEN": secret}, "maxResultBytes": 2048}),
        ),
    );
    s.add(
        "cut",
        surface(
            &[],
            json!({"maxResultBytes": 2048, "resultPolicy": "truncate"}),
        ),
    );
    s.add("plain", fixture(&[]));
    let templates = s.call("resources/templates/list", json!({"server": "fx"}));
    let names: Vec<&str> = templates["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fixture://large/{bytes}", "fixture://env/{name}"]);

    let text = s.call(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://text/readme"}),
    );
    assert_eq!(text["text"], "Fixture readme.");
    assert_eq!(text["output"], "Fixture readme.", "openai: the text form");
    assert_eq!(text["contents"][0]["mimeType"], "text/plain");
    let pixel = s.call(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://blob/pixel", "format": "anthropic"}),
    );
    assert_eq!(pixel["output"][0]["type"], "image", "{pixel}");
    assert_eq!(pixel["output"][0]["source"]["media_type"], "image/png");
    assert_eq!(
        pixel["contents"][0]["blob"],
        pixel["output"][0]["source"]["data"]
    );
    let bytes = s.call(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://blob/bytes"}),
    );
    assert_eq!(
        bytes["output"],
        "[resource fixture://blob/bytes: application/octet-stream, blob]"
    );

    let masked = s.call(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://env/API_TOKEN"}),
    );
    assert!(!masked.to_string().contains(secret), "{masked}");
    assert_eq!(masked["text"], "***");

    let (code, e) = s.error_of(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://nope"}),
    );
    assert_eq!(code, "UPSTREAM_ERROR");
    assert_eq!(
        (&e["data"]["upstreamCode"], &e["data"]["uri"]),
        (&json!(-32002), &json!("fixture://nope"))
    );

    let (code, e) = s.error_of(
        "resources/read",
        json!({"server": "fx", "uri": "fixture://large/5000"}),
    );
    assert_eq!(code, "RESULT_TOO_LARGE", "{e}");
    assert_eq!(e["data"]["setting"], "maxResultBytes");
    let cut = s.call(
        "resources/read",
        json!({"server": "cut", "uri": "fixture://large/5000"}),
    );
    let truncated = &cut["truncated"];
    assert!(truncated["originalBytes"].as_u64().unwrap() > 5000, "{cut}");
    let handle = truncated["handle"].as_str().expect("the full text is kept");
    assert!(cut["text"].as_str().unwrap().len() < 2048);
    assert_eq!(cut["contents"][0]["text"], cut["text"]);
    let full = s.call("results/read", json!({"handle": handle}));
    assert_eq!(full["totalBytes"], 5000);
    assert!(full["text"].as_str().unwrap().bytes().all(|b| b == b'x'));

    let (code, e) = s.error_of(
        "resources/read",
        json!({"server": "plain", "uri": "fixture://text/readme"}),
    );
    assert_eq!(code, "NOT_SUPPORTED", "{e}");
    assert_eq!(
        (&e["error"], &e["data"]["capability"]),
        (&Value::Null, &json!("resources"))
    );
    let (code, _) = s.error_of("resources/read", json!({"server": "fx", "uri": ""}));
    assert_eq!(code, "INVALID_PARAMS");
}

/// A subscription reaches the server, its updates reach the host tagged with the server, and it
/// survives a crash and automatic restart: the server is subscribed again and the host is told
/// the resource may have changed. Unsubscribing reaches the server too.
#[test]
fn subscriptions_reach_the_server_and_survive_a_restart() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", surface(&[], json!({})));
    s.add("plain", fixture(&[]));
    let uri = "fixture://text/readme";
    assert_eq!(
        s.call("resources/subscribe", json!({"server": "fx", "uri": uri})),
        json!({})
    );
    assert_eq!(state(&mut s, "fx")["subscriptions"], json!([uri]));
    emit(&mut s, "fx", json!({"kind": "updated", "uri": uri}));
    s.notification("notifications/resources/updated", |p| {
        p == &json!({"server": "fx", "uri": uri})
    });

    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__exit", "arguments": {"code": 9}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
    s.server_changed("fx", |st| st["state"] == "ready" && st["restarts"] == 1);
    s.notification("notifications/resources/updated", |p| {
        p == &json!({"server": "fx", "uri": uri})
    });
    assert_eq!(
        state(&mut s, "fx")["subscriptions"],
        json!([uri]),
        "subscribed again"
    );

    assert_eq!(
        s.call("resources/unsubscribe", json!({"server": "fx", "uri": uri})),
        json!({})
    );
    assert_eq!(state(&mut s, "fx")["subscriptions"], json!([]));
    // Unsubscribing from a server that is down forgets the URI without starting anything: its
    // next start does not subscribe to it again.
    s.add("once", surface(&[], json!({"restart": "never"})));
    assert_eq!(
        s.call("resources/subscribe", json!({"server": "once", "uri": uri})),
        json!({})
    );
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__once__exit", "arguments": {}}),
    );
    assert_eq!(code, "SERVER_UNAVAILABLE");
    s.server_changed("once", |st| {
        st["state"] == "unhealthy" && st.get("lastExit").is_some()
    });
    assert_eq!(
        s.call(
            "resources/unsubscribe",
            json!({"server": "once", "uri": uri})
        ),
        json!({})
    );
    assert_eq!(
        s.call("servers/restart", json!({"name": "once"}))["state"],
        "ready"
    );
    assert_eq!(
        state(&mut s, "once")["subscriptions"],
        json!([]),
        "not subscribed again"
    );
    let (code, e) = s.error_of(
        "resources/subscribe",
        json!({"server": "plain", "uri": uri}),
    );
    assert_eq!(
        (code.as_str(), &e["data"]["capability"]),
        ("NOT_SUPPORTED", &json!("resources.subscribe"))
    );
}

/// The servers' list changes reach the host as `notifications/resources/changed` and
/// `notifications/prompts/changed`, naming the server.
#[test]
fn list_changes_reach_the_host() {
    let mut s = Sidecar::initialized(json!({}));
    s.add("fx", surface(&[], json!({})));
    emit(&mut s, "fx", json!({"kind": "resources-changed"}));
    s.notification("notifications/resources/changed", |p| {
        p == &json!({"server": "fx"})
    });
    emit(&mut s, "fx", json!({"kind": "prompts-changed"}));
    s.notification("notifications/prompts/changed", |p| {
        p == &json!({"server": "fx"})
    });
}

/// `resourcesAsTools` (per session, or per server overriding it): `list_resources` and
/// `read_resource` join the server's tools under the name template, are converted like any tool,
/// and a call lists or reads through the same path as a tool call; a server tool of the same name
/// keeps it (the sidecar's becomes `list_resources_2`); a server without resources gets neither.
#[test]
fn resources_as_tools_list_and_read_like_any_tool() {
    let mut s = Sidecar::initialized(json!({"resourcesAsTools": true, "toolFormat": "anthropic"}));
    s.add("fx", surface(&[], json!({})));
    s.add(
        "own",
        surface(&["--extra-tool", "list_resources"], json!({})),
    );
    s.add("off", surface(&[], json!({"resources_as_tools": false})));
    s.add("plain", fixture(&[]));
    let list = s.call("tools/list", json!({}));
    let names: BTreeSet<&str> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in [
        "mcp__fx__list_resources",
        "mcp__fx__read_resource",
        "mcp__own__list_resources",
        "mcp__own__read_resource",
    ] {
        assert!(names.contains(name), "{name} in {names:?}");
    }
    let own_second = names
        .iter()
        .find(|n| n.starts_with("mcp__own__list_resources_"))
        .expect("the second one is renamed");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("mcp__off__") && n.ends_with("_resource")
                || n.starts_with("mcp__plain__") && n.contains("resource")),
        "{names:?}"
    );
    let read_def = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "mcp__fx__read_resource")
        .unwrap();
    assert_eq!(
        read_def["definition"]["input_schema"]["required"],
        json!(["uri"])
    );
    assert_eq!(read_def["readOnly"], true);

    let listed = s.call("tools/call", json!({"name": "mcp__fx__list_resources"}));
    assert!(
        listed["text"]
            .as_str()
            .unwrap()
            .starts_with("Resources (3):\n- fixture://text/readme — Read me (text/plain)"),
        "{listed}"
    );
    assert_eq!(
        listed["structuredContent"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let read = s.call(
        "tools/call",
        json!({"name": "mcp__fx__read_resource", "arguments": {"uri": "fixture://blob/pixel"}}),
    );
    assert_eq!(
        read["output"][0]["type"], "image",
        "anthropic tool_result blocks: {read}"
    );
    let (code, _) = s.error_of(
        "tools/call",
        json!({"name": "mcp__fx__read_resource", "arguments": {}}),
    );
    assert_eq!(code, "INVALID_ARGUMENTS");
    // The server's own tool keeps its plain name and still answers as itself.
    let own = s.call(
        "tools/call",
        json!({"name": "mcp__own__list_resources", "arguments": {"message": "mine"}}),
    );
    assert_eq!(own["text"], "mine");
    let synthetic = s.call("tools/call", json!({"name": own_second}));
    assert!(
        synthetic["text"]
            .as_str()
            .unwrap()
            .starts_with("Resources (3)"),
        "{synthetic}"
    );
    // Counted like any call (the one refused for its arguments never reached the server).
    assert_eq!(s.server_status("fx")["calls"], 2);
}
