//! The aggregate's resources, prompts and completion on the wire: two `--surface` fixture servers
//! behind `mcp-sidecar mcp`, a legacy session (subscriptions, list changes) and 2026-07-28
//! requests (`subscriptions/listen` with resource subscriptions).

use serde_json::{json, Value};

use super::harness::*;
use crate::support::*;

const SECRET: &str = "hush-hush-value-1234";

/// `a`: the fixture surface with a secret in its environment; `b`: the same plus two resources of
/// its own (`fixture://item/0`, `/1`).
fn servers() -> Value {
    json!({
        "a": with_fields(fixture(&["--surface"]), json!({"env": {"API_TOKEN": SECRET}})),
        "b": fixture(&["--surface", "--resources", "2"]),
    })
}

fn field<'a>(items: &'a Value, key: &str) -> Vec<&'a str> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_str().unwrap())
        .collect()
}

/// `emit {args}` through server `server`'s `emit` tool.
fn emit(s: &mut Sidecar, server: &str, args: Value, meta: Option<Value>) {
    let mut params = json!({"name": format!("{server}__emit"), "arguments": args});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let r = s.call("tools/call", params);
    assert_eq!(r["content"][0]["text"], "emitted", "{r}");
}

#[test]
fn resources_prompts_and_completion_of_every_server_are_served_to_a_legacy_client() {
    let (mut s, _) = mcp_stdio(servers(), &["--wait-for-servers"]);
    let init = initialize(&mut s, "2025-11-25");
    let caps = &init["capabilities"];
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert!(caps["completions"].is_object(), "{caps}");

    let resources = s.call("resources/list", json!({}));
    let uris = field(&resources["resources"], "uri");
    assert_eq!(uris.len(), 3 + 5, "{resources}");
    assert!(uris.contains(&"fixture://item/1"));
    assert!(
        resources["resources"][0].get("server").is_none(),
        "MCP items: {resources}"
    );
    let templates = s.call("resources/templates/list", json!({}));
    assert!(field(&templates["resourceTemplates"], "uriTemplate").contains(&"fixture://env/{name}"));

    let prompts = s.call("prompts/list", json!({}));
    let mut names = field(&prompts["prompts"], "name");
    names.sort();
    assert_eq!(names, ["a__greet", "a__picture", "b__greet", "b__picture"]);

    let got = s.call(
        "prompts/get",
        json!({"name": "b__greet", "arguments": {"name": "Ann"}}),
    );
    assert!(
        got["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Ann"),
        "{got}"
    );
    let unknown = s.request("prompts/get", json!({"name": "c__greet"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown["error"]["message"]
        .as_str()
        .unwrap()
        .contains("c__greet"));

    // b alone lists it, so b reads it.
    let item = s.call("resources/read", json!({"uri": "fixture://item/1"}));
    assert_eq!(item["contents"][0]["uri"], "fixture://item/1", "{item}");
    // Listed by no one (made from a template): found on the first server that serves it; its
    // secret masked.
    let env = s.call("resources/read", json!({"uri": "fixture://env/API_TOKEN"}));
    assert!(!env.to_string().contains(SECRET), "{env}");
    assert_eq!(env["contents"][0]["text"], "***", "{env}");
    let missing = s.request("resources/read", json!({"uri": "nowhere://x"}));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(missing["error"]["message"]
        .as_str()
        .unwrap()
        .contains("nowhere://x"));

    let completion = s.call(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "a__greet"}, "argument": {"name": "name", "value": "al"}}),
    );
    assert_eq!(
        completion["completion"]["values"],
        json!(["alice", "albert"])
    );
    let by_template = s.call(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "fixture://large/{bytes}"}, "argument": {"name": "bytes", "value": "1"}}),
    );
    assert!(
        !by_template["completion"]["values"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{by_template}"
    );

    // Subscribed: the server's update reaches the client with the original URI; list changes too.
    assert_eq!(
        s.call("resources/subscribe", json!({"uri": "fixture://item/0"})),
        json!({})
    );
    emit(
        &mut s,
        "b",
        json!({"kind": "updated", "uri": "fixture://item/0"}),
        None,
    );
    let updated = s.notification("notifications/resources/updated", |_| true);
    assert_eq!(updated["params"]["uri"], "fixture://item/0");
    emit(&mut s, "a", json!({"kind": "prompts-changed"}), None);
    s.notification("notifications/prompts/list_changed", |_| true);
    emit(&mut s, "b", json!({"kind": "resources-changed"}), None);
    s.notification("notifications/resources/list_changed", |_| true);

    // Unsubscribed: the server is told (its state says so) and an update no longer comes.
    s.call("resources/unsubscribe", json!({"uri": "fixture://item/0"}));
    let state = s.call(
        "tools/call",
        json!({"name": "b__emit", "arguments": {"kind": "state"}}),
    );
    let told: Value = serde_json::from_str(state["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(told["subscriptions"], json!([]), "{told}");
}

#[test]
fn a_modern_listener_gets_its_subscribed_resources_and_the_lists_it_asked_for() {
    let (mut s, _) = mcp_stdio(servers(), &["--wait-for-servers"]);
    let discover = s.call("server/discover", modern(json!({})));
    assert_eq!(
        discover["capabilities"]["prompts"],
        json!({"listChanged": true})
    );
    let prompts = s.call("prompts/list", modern(json!({})));
    assert_eq!(prompts["resultType"], "complete");
    assert_eq!(prompts["prompts"].as_array().unwrap().len(), 4, "{prompts}");
    let got = s.call("prompts/get", modern(json!({"name": "a__picture"})));
    assert_eq!(got["resultType"], "complete");
    assert!(got["messages"].as_array().unwrap().len() == 2, "{got}");
    assert_eq!(
        s.request(
            "resources/subscribe",
            modern(json!({"uri": "fixture://item/0"}))
        )["error"]["code"],
        -32601,
        "removed in 2026-07-28"
    );

    let listen = s.send(
        "subscriptions/listen",
        modern(json!({"notifications": {
            "promptsListChanged": true,
            "resourceSubscriptions": ["fixture://item/0", "nowhere://x"],
        }})),
    );
    let ack = s.notification("notifications/subscriptions/acknowledged", |_| true);
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true, "resourceSubscriptions": ["fixture://item/0"]})
    );
    let meta = modern_meta();
    // Asked for neither resources' list changes nor another URI: those do not come; the
    // subscribed update after them does, tagged.
    emit(
        &mut s,
        "b",
        json!({"kind": "resources-changed"}),
        Some(meta.clone()),
    );
    emit(
        &mut s,
        "b",
        json!({"kind": "updated", "uri": "fixture://item/1"}),
        Some(meta.clone()),
    );
    emit(
        &mut s,
        "b",
        json!({"kind": "updated", "uri": "fixture://item/0"}),
        Some(meta.clone()),
    );
    let updated = s.wait_for(|m| {
        m.get("id").is_none()
            && m["method"]
                .as_str()
                .is_some_and(|m| m.starts_with("notifications/resources/"))
    });
    assert_eq!(
        updated["method"], "notifications/resources/updated",
        "{updated}"
    );
    assert_eq!(updated["params"]["uri"], "fixture://item/0");
    assert_eq!(
        updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen)
    );
    emit(&mut s, "a", json!({"kind": "prompts-changed"}), Some(meta));
    let changed = s.notification("notifications/prompts/list_changed", |_| true);
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(listen)
    );
}
