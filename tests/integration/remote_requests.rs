//! `@modelcontextprotocol/server-everything` (from npm, as installed by `.ci/run`) asking its
//! client through the sidecar, over stdio and Streamable HTTP: its sampling, elicitation and
//! roots requests reach the test (the host) as the sidecar's own requests and the answers reach
//! the server (its tools echo them); the host's changed roots reach the server; its progress
//! reaches the host tagged with the call's id, before the answer.

use serde_json::{json, Value};

use crate::remote_servers::{everything, node22, remote_dir};
use crate::support::Sidecar;

/// The roots the host gives, changed by the test.
struct Host {
    s: Sidecar,
    roots: Value,
    /// The methods the sidecar asked, in order.
    asked: Vec<String>,
}

impl Host {
    fn new() -> Self {
        let capabilities =
            json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": true}});
        Self {
            s: Sidecar::initialized(json!({ "capabilities": capabilities })),
            roots: json!([{"uri": "file:///srv/alpha", "name": "alpha"}]),
            asked: Vec::new(),
        }
    }

    /// Answers every request of the sidecar until the response to `id` arrives; returns it.
    fn answering_until(&mut self, id: i64) -> Value {
        loop {
            let m = self.s.wait_for(|m| {
                m.get("method").is_some() && m.get("id").is_some()
                    || m.get("method").is_none() && m["id"] == id
            });
            let Some(method) = m["method"].as_str() else {
                return m;
            };
            assert_eq!(m["params"]["server"], "e", "{m}");
            self.asked.push(method.to_owned());
            let result = match method {
                "roots/list" => json!({ "roots": self.roots }),
                "sampling/createMessage" => {
                    let asked = m["params"]["messages"][0]["content"]["text"]
                        .as_str()
                        .unwrap_or_default();
                    json!({"role": "assistant", "model": "host-model",
                           "content": {"type": "text", "text": format!("sampled reply to [{asked}]")}})
                }
                "elicitation/create" => {
                    json!({"action": "accept", "content": {"name": "Ada Lovelace"}})
                }
                other => panic!("unexpected request {other}: {m}"),
            };
            let answer = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
            self.s.write_raw(format!("{answer}\n").as_bytes());
        }
    }

    fn call(&mut self, tool: &str, params: Value) -> Value {
        let mut params = params;
        params["name"] = json!(format!("mcp__e__{tool}"));
        let id = self.s.send("tools/call", params);
        let r = self.answering_until(id);
        assert!(r.get("result").is_some(), "{tool}: {r}");
        r
    }

    fn text(&mut self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, json!({ "arguments": arguments }));
        r["result"]["text"].as_str().unwrap_or_default().to_owned()
    }

    /// Waits (answering) until `tool` is listed: server-everything adds its sampling, elicitation
    /// and roots tools once it has read the client's capabilities.
    fn until_listed(&mut self, tool: &str) {
        let name = format!("mcp__e__{tool}");
        for _ in 0..100 {
            let id = self.s.send("tools/list", json!({}));
            let list = self.answering_until(id);
            if list.to_string().contains(&name) {
                return;
            }
            self.s.notification("notifications/tools/changed", |_| true);
        }
        panic!("{name} never listed");
    }
}

fn exercise(config: Value) {
    let mut host = Host::new();
    let id = host
        .s
        .send("servers/add", json!({"name": "e", "config": config}));
    let status = host.answering_until(id);
    assert_eq!(status["result"]["state"], "ready", "{status}");
    for tool in [
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
    ] {
        host.until_listed(tool);
    }

    let sampled = host.text(
        "trigger-sampling-request",
        json!({"prompt": "two plus two", "maxTokens": 16}),
    );
    assert!(
        sampled.contains("sampled reply to [") && sampled.contains("two plus two"),
        "{sampled}"
    );
    assert!(sampled.contains("host-model"), "{sampled}");

    let elicited = host.text("trigger-elicitation-request", json!({}));
    assert!(elicited.contains("Ada Lovelace"), "{elicited}");

    let roots = host.text("get-roots-list", json!({}));
    assert!(roots.contains("file:///srv/alpha"), "{roots}");

    // The host's roots change: the server is told and asks again.
    host.roots = json!([{"uri": "file:///srv/beta", "name": "beta"}]);
    let asked_before = host.asked.iter().filter(|m| *m == "roots/list").count();
    host.s.notify("notifications/roots/list_changed", json!({}));
    let request = host
        .s
        .wait_for(|m| m["method"] == "roots/list" && m.get("id").is_some());
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": host.roots}});
    host.s.write_raw(format!("{answer}\n").as_bytes());
    assert!(asked_before >= 1);
    // Its answer is stored by the server on its own time: there is no event to wait for.
    let cell = std::cell::RefCell::new(&mut host);
    crate::support::eventually("the server saw the new roots", || {
        let listed = cell.borrow_mut().text("get-roots-list", json!({}));
        listed.contains("file:///srv/beta")
    });

    // Progress: tagged with the call's id, every one before the answer.
    let id = host.s.send(
        "tools/call",
        json!({"name": "mcp__e__trigger-long-running-operation", "arguments": {"duration": 1, "steps": 3}, "progress": true}),
    );
    let answer = host.answering_until(id);
    assert!(
        answer["result"]["text"]
            .as_str()
            .unwrap()
            .contains("completed"),
        "{answer}"
    );
    let progress: Vec<Value> = host
        .s
        .held()
        .into_iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress before the answer");
    for p in &progress {
        assert_eq!(p["params"]["requestId"], id, "{p}");
        assert_eq!(p["params"]["total"], 3, "{p}");
    }
    let steps: Vec<f64> = progress
        .iter()
        .map(|p| p["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(
        steps.windows(2).all(|w| w[0] < w[1]),
        "progress increases: {steps:?}"
    );
}

#[test]
fn server_everything_over_stdio_asks_the_host_and_reports_progress() {
    let script =
        remote_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    exercise(json!({"command": node22(), "args": [script, "stdio"]}));
}

#[test]
fn server_everything_over_streamable_http_asks_the_host_and_reports_progress() {
    let (_server, port) = everything("streamableHttp");
    exercise(json!({"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}));
}
