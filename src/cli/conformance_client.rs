//! `mcp-sidecar conformance-client <url>`: a host for the official MCP conformance suite. It
//! spawns the sidecar and drives it through host protocol v1 only, as any host would:
//! `initialize` (declaring sampling, elicitation, roots and auth), `servers/add` with the
//! scenario's URL (and the OAuth client the scenario gives, or this host's client metadata
//! document), `tools/list`, the `tools/call` the scenario expects, answering the sidecar's requests
//! (an elicitation is accepted with the form's defaults; a login is done headlessly: the
//! authorization URL is fetched, and where it redirects is handed back), then `shutdown`. Everything
//! scenario-specific is here; the sidecar does what it does for every host. The suite names the
//! scenario in `MCP_CONFORMANCE_SCENARIO`; see `docs/conformance.md`.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::host_peer::{HostPeer, PeerError};

/// The longest wait for any one answer of the sidecar (the suite's own timeout is 30 s).
const ANSWER_WITHIN: Duration = Duration::from_secs(25);

/// The name the scenario's server is added under.
const SERVER: &str = "conformance";

/// Runs the scenario against `url`; `Err` (printed by the caller, exit 1) when a step failed.
pub(crate) async fn run(url: &str) -> Result<(), PeerError> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let peer = HostPeer::spawn(Arc::new(answer))?;
    let outcome = drive(&peer, &scenario, url).await;
    let stopped = peer.shutdown(ANSWER_WITHIN).await;
    outcome.and(stopped)
}

async fn drive(peer: &HostPeer, scenario: &str, url: &str) -> Result<(), PeerError> {
    let initialize = json!({
        "protocolVersion": 1,
        "clientInfo": {"name": "mcp-sidecar-conformance", "version": env!("CARGO_PKG_VERSION")},
        "toolFormat": "mcp",
        "capabilities": {
            "sampling": {},
            "elicitation": {"form": {}},
            "roots": {"listChanged": true},
            "auth": {},
        },
        // Every scenario is a new authorization server: nothing is worth keeping.
        "tokenStorage": "memory",
    });
    peer.request("initialize", initialize, ANSWER_WITHIN)
        .await?;
    let mut config = json!({"type": "http", "url": url, "oauth": oauth_client()});
    // The suite names the revision a run is of: the initialize lifecycle up to 2025-11-25, the
    // stateless one from 2026-07-28. A host pins it as any host would for a server it knows.
    if let Ok(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        if !version.is_empty() {
            config["protocolVersion"] = json!(version);
        }
    }
    let added = json!({"name": SERVER, "config": config});
    let status = peer.request("servers/add", added, ANSWER_WITHIN).await?;
    if status["state"] != "ready" {
        return Err(failed("servers/add", &status["lastError"]));
    }
    let listing = peer.request("tools/list", json!({}), ANSWER_WITHIN).await?;
    let tools = listing["tools"].as_array().cloned().unwrap_or_default();
    for (tool, arguments) in calls_for(scenario, &tools) {
        let Some(entry) = tools.iter().find(|t| t["tool"] == tool) else {
            return Err(failed("tools/list", &json!(format!("no tool `{tool}`"))));
        };
        let call = json!({"name": entry["name"], "arguments": arguments});
        let result = peer.request("tools/call", call, ANSWER_WITHIN).await?;
        if result["isError"] == true {
            return Err(failed("tools/call", &result["text"]));
        }
    }
    Ok(())
}

/// The tools a scenario expects to be called, in order, and their arguments.
fn calls_for(scenario: &str, tools: &[Value]) -> Vec<(&'static str, Value)> {
    match scenario {
        "tools_call" => vec![("add_numbers", json!({"a": 2, "b": 3}))],
        "sse-retry" => vec![("test_reconnection", json!({}))],
        "elicitation-sep1034-client-defaults" => {
            vec![("test_client_elicitation_defaults", json!({}))]
        }
        // Every authorization scenario serves one tool behind its authorization.
        s if s.starts_with("auth/") => vec![("test-tool", json!({}))],
        // Echo a tool's input schema back exactly as the sidecar listed it (`mcp` format).
        "json-schema-2020-12-preservation" => {
            let Some(focal) = tools
                .iter()
                .find(|t| t["tool"] == "json_schema_2020_12_tool")
            else {
                return Vec::new();
            };
            let schema = focal["definition"]["inputSchema"].clone();
            vec![("json_schema_echo", json!({"schema": schema}))]
        }
        // Two tools that ask for input (with and without a request state), one between them that
        // must not carry their answers, one whose result names no resultType.
        "sep-2322-client-request-state" => vec![
            ("test_mrtr_echo_state", json!({})),
            ("test_mrtr_unrelated", json!({})),
            ("test_mrtr_no_state", json!({})),
            ("test_mrtr_no_result_type", json!({})),
        ],
        // Arguments of every kind a header mirrors, plain and encoded; then a null one.
        "http-custom-headers" => vec![
            (
                "test_custom_headers",
                json!({"region": "us-west1", "priority": 5, "verbose": true, "debug": false,
                    "non_ascii_val": "日本語", "whitespace_val": " padded ",
                    "leading_space_val": " lead", "trailing_space_val": "trail ",
                    "internal_space_val": "in side", "control_char_val": "a\u{1}b",
                    "crlf_val": "a\r\nb", "tab_val": "\tx", "query": "q"}),
            ),
            (
                "test_custom_headers_null",
                json!({"region": "eu", "priority": 1, "verbose": null, "query": "q"}),
            ),
        ],
        "http-invalid-tool-headers" => vec![("valid_tool", json!({"region": "us-west1"}))],
        _ => Vec::new(),
    }
}

/// The client metadata document this host uses as its OAuth client id where an authorization
/// server supports them (the suite's own URL for it).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The `oauth` config: the pre-registered client the scenario names in `MCP_CONFORMANCE_CONTEXT`,
/// else this host's client metadata document (the sidecar registers dynamically where the
/// authorization server supports neither).
fn oauth_client() -> Value {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    match context["client_id"].as_str() {
        Some(id) => {
            let mut client = json!({"clientId": id});
            if let Some(secret) = context["client_secret"].as_str() {
                client["clientSecret"] = json!(secret);
            }
            // The client-credentials scenarios give no redirect: their client has no browser.
            if std::env::var("MCP_CONFORMANCE_SCENARIO")
                .is_ok_and(|s| s.starts_with("auth/client-credentials"))
            {
                client["grant"] = json!("client_credentials");
            }
            // `private_key_jwt`: the key goes where an operator keeps it, in a file.
            if let Some(pem) = context["private_key_pem"].as_str() {
                let file = std::env::temp_dir().join(format!(
                    "mcp-sidecar-conformance-{}.pem",
                    std::process::id()
                ));
                if std::fs::write(&file, pem).is_ok() {
                    client["clientAssertionKeyFile"] = json!(file);
                }
            }
            client
        }
        None => json!({"clientMetadataUrl": CLIENT_METADATA_URL}),
    }
}

/// The host's answer to one of the sidecar's requests.
fn answer(method: String, params: Value) -> BoxFuture<'static, Result<Value, Value>> {
    if method == "auth/authorize" {
        return Box::pin(authorize(params));
    }
    Box::pin(std::future::ready(answer_now(&method, &params)))
}

/// `auth/authorize`, headlessly: the authorization URL is fetched without following its redirect
/// (the suite's authorization server approves at once), and where it redirects is the answer.
async fn authorize(params: Value) -> Result<Value, Value> {
    let declined = |why: String| Ok(json!({"action": "declined", "reason": why}));
    let Some(url) = params["url"]
        .as_str()
        .and_then(|u| reqwest::Url::parse(u).ok())
    else {
        return declined("no authorization URL".into());
    };
    let client = match reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(ANSWER_WITHIN)
        .build()
    {
        Ok(c) => c,
        Err(e) => return declined(format!("no HTTP client: {e}")),
    };
    let resp = match client.get(url.clone()).send().await {
        Ok(r) => r,
        Err(e) => return declined(format!("the authorization URL could not be fetched: {e}")),
    };
    let location = resp
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .and_then(|l| url.join(l).ok());
    match location {
        Some(redirect) if resp.status().is_redirection() => {
            Ok(json!({"action": "redirected", "redirectUrl": redirect.as_str()}))
        }
        _ => declined(format!(
            "the authorization server answered HTTP {} without a redirect",
            resp.status().as_u16()
        )),
    }
}

/// The answers that need no waiting.
fn answer_now(method: &str, params: &Value) -> Result<Value, Value> {
    match method {
        "elicitation/create" if params["mode"].as_str().unwrap_or("form") == "form" => {
            Ok(json!({"action": "accept", "content": defaults(&params["requestedSchema"])}))
        }
        // This host never opens a URL.
        "elicitation/create" => Ok(json!({"action": "decline"})),
        "sampling/createMessage" => Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "This host has no model; this is a fixed answer."},
            "model": "mcp-sidecar-conformance",
            "stopReason": "endTurn",
        })),
        "roots/list" => Ok(json!({"roots": []})),
        other => Err(json!({"code": -32601, "message": format!("method not found: {other}")})),
    }
}

/// A form's answer as a user who accepts every default would give it.
fn defaults(schema: &Value) -> Value {
    let properties = schema["properties"].as_object().into_iter().flatten();
    let filled: Map<String, Value> = properties
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect();
    Value::Object(filled)
}

fn failed(method: &str, why: &Value) -> PeerError {
    PeerError::Refused {
        method: method.to_owned(),
        code: "SCENARIO_FAILED".to_owned(),
        message: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accepted_form_carries_every_default() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "free": {"type": "string"},
        }});
        let answer = answer_now(
            "elicitation/create",
            &json!({"message": "m", "requestedSchema": schema}),
        );
        assert_eq!(
            answer,
            Ok(json!({"action": "accept", "content": {"name": "John Doe", "age": 30}}))
        );
        assert_eq!(answer_code("bogus/method"), Some(-32601));
    }

    fn answer_code(method: &str) -> Option<i64> {
        answer_now(method, &json!({})).err()?["code"].as_i64()
    }
}
