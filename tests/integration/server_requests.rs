//! A server's own requests (sampling, elicitation, roots) asked of the host as requests from the
//! sidecar, against the fixture's `--client-requests` tools: `ask` sends its client any request
//! and answers the call with the response it got (`{result}` or `{error}`, as structured
//! content), `client_state` tells what the client declared. The host here is the test.

use serde_json::{json, Value};

use crate::support::{fixture, Sidecar};

/// A sidecar whose host declared `capabilities` (and `extra` initialize params), with the asking
/// fixture added as `fx`.
fn host_declaring(capabilities: Value, extra: Value, args: &[&str]) -> Sidecar {
    let mut params = json!({ "capabilities": capabilities });
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let mut s = Sidecar::initialized_with(args, params);
    let status = s.add("fx", fixture(&["--client-requests"]));
    assert_eq!(status["state"], "ready", "{status}");
    s
}

/// Starts `ask {method, params, …}` on the fixture; returns the call's id.
fn ask(s: &mut Sidecar, method: &str, params: Value, extra: Value) -> i64 {
    let mut arguments = json!({"method": method, "params": params});
    arguments
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    s.send(
        "tools/call",
        json!({"name": "mcp__fx__ask", "arguments": arguments}),
    )
}

/// The next request the sidecar sends the host with `method`.
fn request_to_host(s: &mut Sidecar, method: &str) -> Value {
    s.wait_for(|m| m["method"] == method && m.get("id").is_some())
}

/// What the server got for its request: the structured content of the `ask` call's result.
fn server_got(s: &mut Sidecar, call: i64) -> Value {
    let r = s.response(call);
    r["result"]["structuredContent"].clone()
}

fn answer(s: &mut Sidecar, id: &Value, result: Value) {
    let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
    s.write_raw(format!("{line}\n").as_bytes());
}

fn refuse(s: &mut Sidecar, id: &Value, error: Value) {
    let line = json!({"jsonrpc": "2.0", "id": id, "error": error});
    s.write_raw(format!("{line}\n").as_bytes());
}

#[test]
fn a_sampling_request_reaches_the_host_with_the_server_name_and_its_answer_the_server() {
    let mut s = host_declaring(json!({"sampling": {}}), json!({}), &[]);
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 16});
    let call = ask(&mut s, "sampling/createMessage", params, json!({}));
    let request = request_to_host(&mut s, "sampling/createMessage");
    let id = request["id"].clone();
    assert!(
        id.as_str().is_some_and(|i| i.starts_with("sidecar-")),
        "the sidecar's ids are its own strings: {request}"
    );
    assert_eq!(request["params"]["server"], "fx");
    assert_eq!(request["params"]["maxTokens"], 16);
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "hi");
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"});
    answer(&mut s, &id, reply.clone());
    assert_eq!(server_got(&mut s, call), json!({ "result": reply }));
}

#[test]
fn servers_are_told_exactly_what_the_host_declared() {
    let declared = json!({"sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": true}});
    let mut s = host_declaring(declared.clone(), json!({}), &[]);
    let state = s.call("tools/call", json!({"name": "mcp__fx__client_state"}));
    // Besides what the host declared, the sidecar's own: it knows tasks (and receives none).
    let mut expected = declared.clone();
    expected["tasks"] = json!({});
    assert_eq!(state["structuredContent"]["capabilities"], expected);

    let mut bare = Sidecar::initialized(json!({}));
    bare.add("fx", fixture(&["--client-requests"]));
    let state = bare.call("tools/call", json!({"name": "mcp__fx__client_state"}));
    assert_eq!(
        state["structuredContent"]["capabilities"],
        json!({"tasks": {}})
    );
}

#[test]
fn an_undeclared_capability_is_method_not_found_and_the_host_is_not_asked() {
    let mut s = host_declaring(json!({"elicitation": {}}), json!({}), &[]);
    for method in ["sampling/createMessage", "roots/list", "some/other"] {
        let call = ask(&mut s, method, json!({}), json!({}));
        let got = server_got(&mut s, call);
        assert_eq!(got["error"]["code"], -32601, "{method}: {got}");
    }
    // An undeclared mode of a declared capability is invalid params (MCP).
    let url =
        json!({"mode": "url", "url": "https://example.com/", "message": "m", "elicitationId": "e"});
    let call = ask(&mut s, "elicitation/create", url, json!({}));
    assert_eq!(server_got(&mut s, call)["error"]["code"], -32602);
    s.call("ping", json!({}));
    let asked: Vec<Value> = s
        .held()
        .into_iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some())
        .collect();
    assert!(asked.is_empty(), "the host was asked: {asked:?}");
}

#[test]
fn the_hosts_error_reaches_the_server_as_it_is() {
    let mut s = host_declaring(json!({"elicitation": {"form": {}}}), json!({}), &[]);
    let form = json!({"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}});
    let call = ask(&mut s, "elicitation/create", form, json!({}));
    let request = request_to_host(&mut s, "elicitation/create");
    assert_eq!(request["params"]["message"], "Your name?");
    let error =
        json!({"code": -1, "message": "User rejected the request", "data": {"why": "busy"}});
    refuse(&mut s, &request["id"], error.clone());
    assert_eq!(server_got(&mut s, call), json!({ "error": error }));
}

#[test]
fn a_host_that_never_answers_is_timed_out_told_and_its_late_answer_dropped() {
    let mut s = host_declaring(json!({"roots": {}}), json!({"answerTimeoutMs": 300}), &[]);
    let call = ask(&mut s, "roots/list", json!({}), json!({}));
    let request = request_to_host(&mut s, "roots/list");
    let got = server_got(&mut s, call);
    assert_eq!(got["error"]["code"], -32001, "{got}");
    assert!(
        got["error"]["message"].as_str().unwrap().contains("300 ms"),
        "{got}"
    );
    let cancelled = s.notification("notifications/cancelled", |p| {
        p["requestId"] == request["id"]
    });
    assert!(cancelled["params"]["reason"]
        .as_str()
        .unwrap()
        .contains("answerTimeoutMs"));
    // A late answer matches nothing; the session goes on.
    answer(&mut s, &request["id"], json!({"roots": []}));
    s.call("ping", json!({}));
}

#[test]
fn a_server_that_withdraws_its_request_cancels_it_at_the_host() {
    let mut s = host_declaring(json!({"roots": {}}), json!({}), &[]);
    let call = ask(
        &mut s,
        "roots/list",
        json!({}),
        json!({"withdrawAfterMs": 200}),
    );
    let request = request_to_host(&mut s, "roots/list");
    s.notification("notifications/cancelled", |p| {
        p["requestId"] == request["id"]
    });
    assert_eq!(server_got(&mut s, call), json!({"withdrawn": true}));
}

#[test]
fn answers_are_read_while_the_reader_waits_for_a_ticket() {
    // One request in flight at most: the `ask` call holds the only ticket while its server waits
    // for the host's answer, and the host's next request waits for that ticket — the answer,
    // written behind it, must still be read or all three wait forever.
    let mut s = host_declaring(json!({"roots": {}}), json!({}), &["--max-inflight", "1"]);
    let call = ask(&mut s, "roots/list", json!({}), json!({}));
    let request = request_to_host(&mut s, "roots/list");
    let ping = s.send("ping", json!({}));
    answer(
        &mut s,
        &request["id"],
        json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
    );
    assert_eq!(
        server_got(&mut s, call),
        json!({"result": {"roots": [{"uri": "file:///work", "name": "work"}]}})
    );
    assert_eq!(s.response(ping)["result"], json!({}));
}

#[test]
fn one_server_cannot_hold_more_than_its_share_of_questions() {
    const SHARE: usize = 32; // limits::SERVER_REQUESTS_MAX_INFLIGHT
    let mut s = host_declaring(json!({"roots": {}}), json!({}), &[]);
    let calls: Vec<i64> = (0..SHARE)
        .map(|_| ask(&mut s, "roots/list", json!({}), json!({})))
        .collect();
    let requests: Vec<Value> = (0..SHARE)
        .map(|_| request_to_host(&mut s, "roots/list"))
        .collect();
    let over = ask(&mut s, "roots/list", json!({}), json!({}));
    let got = server_got(&mut s, over);
    assert_eq!(got["error"]["code"], -32000, "{got}");
    assert!(
        got["error"]["message"].as_str().unwrap().contains("32"),
        "{got}"
    );
    for request in &requests {
        answer(&mut s, &request["id"], json!({"roots": []}));
    }
    for call in calls {
        assert_eq!(server_got(&mut s, call), json!({"result": {"roots": []}}));
    }
}

/// A server's questions are bounded by their size as well as their count: four sampling requests
/// of 1.9 MB fill its 8 MiB (`limits::SERVER_REQUESTS_MAX_BYTES`), so a fifth and sixth are
/// refused at once (-32000, naming the bytes) while the four wait; once they are answered, the
/// server may ask again.
#[test]
fn one_server_cannot_hold_more_than_its_share_of_question_bytes() {
    const PAD: u64 = 1_900_000;
    let mut s = host_declaring(json!({"sampling": {}}), json!({}), &[]);
    let sampling = json!({"messages": [], "maxTokens": 1});
    let pad = json!({ "padBytes": PAD });
    let calls: Vec<i64> = (0..6)
        .map(|_| {
            ask(
                &mut s,
                "sampling/createMessage",
                sampling.clone(),
                pad.clone(),
            )
        })
        .collect();
    let requests: Vec<Value> = (0..4)
        .map(|_| request_to_host(&mut s, "sampling/createMessage"))
        .collect();
    for refused in &calls[4..] {
        let got = server_got(&mut s, *refused);
        assert_eq!(got["error"]["code"], -32000, "{got}");
        let message = got["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("server `fx`") && message.contains("bytes"),
            "{got}"
        );
    }
    let done =
        json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"});
    for request in &requests {
        assert_eq!(
            request["params"]["pad"].as_str().map(str::len),
            Some(PAD as usize)
        );
        answer(&mut s, &request["id"], done.clone());
    }
    for call in &calls[..4] {
        assert_eq!(server_got(&mut s, *call)["result"]["model"], "m");
    }
    let again = ask(&mut s, "sampling/createMessage", sampling, pad);
    let request = request_to_host(&mut s, "sampling/createMessage");
    answer(&mut s, &request["id"], done);
    assert_eq!(server_got(&mut s, again)["result"]["model"], "m");
}

#[test]
fn the_host_going_away_with_a_question_open_ends_the_session_cleanly() {
    let mut s = host_declaring(json!({"roots": {}}), json!({}), &[]);
    ask(&mut s, "roots/list", json!({}), json!({}));
    request_to_host(&mut s, "roots/list");
    s.close_stdin();
    assert_eq!(s.wait_exit(), Some(0));
}

#[test]
fn an_unknown_host_capability_is_invalid_params() {
    let mut s = Sidecar::spawn();
    for (params, field) in [
        (
            json!({"protocolVersion": 1, "capabilities": {"samplng": {}}}),
            "samplng",
        ),
        (
            json!({"protocolVersion": 1, "answerTimeoutMs": 0}),
            "answerTimeoutMs",
        ),
    ] {
        let (code, error) = s.error_of("initialize", params);
        assert_eq!(code, "INVALID_PARAMS");
        assert!(
            error["message"].as_str().unwrap().contains(field),
            "{error}"
        );
    }
    let r = s.call("initialize", json!({"protocolVersion": 1}));
    assert_eq!(
        r["capabilities"]["hostCapabilities"],
        json!(["sampling", "elicitation", "roots", "auth"])
    );
}

#[test]
fn a_servers_secret_values_are_masked_in_what_the_host_is_asked() {
    const SECRET: &str = "tok-9f8e7d6c5b4a3210";
    let mut s = Sidecar::initialized(json!({"capabilities": {"sampling": {}}}));
    let config = crate::support::with_fields(
        fixture(&["--client-requests"]),
        json!({"env": {"API_TOKEN": SECRET}}),
    );
    assert_eq!(s.add("fx", config)["state"], "ready");
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": format!("key {SECRET}")}}],
                        "maxTokens": 5, "metadata": {"token": SECRET}});
    let call = ask(&mut s, "sampling/createMessage", params, json!({}));
    let request = request_to_host(&mut s, "sampling/createMessage");
    let text = request.to_string();
    assert!(!text.contains(SECRET), "a secret reached the host: {text}");
    assert_eq!(
        request["params"]["messages"][0]["content"]["text"],
        "key ***"
    );
    assert_eq!(request["params"]["metadata"]["token"], "***");
    answer(
        &mut s,
        &request["id"],
        json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}),
    );
    server_got(&mut s, call);
}

#[test]
fn a_host_that_cancels_the_call_sees_the_servers_question_withdrawn() {
    let mut s = host_declaring(json!({"sampling": {}}), json!({}), &[]);
    let params = json!({"messages": [], "maxTokens": 5});
    let call = ask(&mut s, "sampling/createMessage", params, json!({}));
    let request = request_to_host(&mut s, "sampling/createMessage");
    s.notify(
        "notifications/cancelled",
        json!({"requestId": call, "reason": "user pressed stop"}),
    );
    assert_eq!(s.response(call)["error"]["data"]["code"], "CANCELLED");
    // The server is told its call was cancelled, withdraws its own request, and the host is told.
    s.notification("notifications/cancelled", |p| {
        p["requestId"] == request["id"]
    });
}

/// An elicitation in URL mode shows its URL to a person: only https (or http to a loopback host)
/// reaches the host; `javascript:`, `file:` and `data:` URLs, or plain http across the network, are
/// -32602 to the server and the host is never asked. A good one still reaches it.
#[test]
fn an_elicitation_url_that_is_not_https_is_refused_before_the_host_sees_it() {
    let mut s = host_declaring(json!({"elicitation": {"url": {}}}), json!({}), &[]);
    for url in [
        "javascript:alert(document.cookie)",
        "file:///etc/passwd",
        "data:text/html,<script>alert(1)</script>",
        "http://example.com/verify",
    ] {
        let params = json!({"mode": "url", "url": url, "message": "m", "elicitationId": "e"});
        let call = ask(&mut s, "elicitation/create", params, json!({}));
        let got = server_got(&mut s, call);
        assert_eq!(got["error"]["code"], -32602, "{url}: {got}");
        assert!(
            got["error"]["message"].as_str().unwrap().contains("url"),
            "{got}"
        );
    }
    s.call("ping", json!({}));
    let asked: Vec<Value> = s
        .held()
        .into_iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some())
        .collect();
    assert!(asked.is_empty(), "the host was asked: {asked:?}");

    let params = json!({"mode": "url", "url": "https://example.com/verify", "message": "m", "elicitationId": "e"});
    let call = ask(&mut s, "elicitation/create", params, json!({}));
    let request = request_to_host(&mut s, "elicitation/create");
    assert_eq!(request["params"]["url"], "https://example.com/verify");
    answer(&mut s, &request["id"], json!({"action": "accept"}));
    assert_eq!(
        server_got(&mut s, call),
        json!({"result": {"action": "accept"}})
    );
}
