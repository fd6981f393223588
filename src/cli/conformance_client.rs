//! `mcp-sidecar conformance-client <url>`: a host for the official MCP conformance suite. It
//! spawns the sidecar and drives it through host protocol v1 only, as any host would:
//! `initialize` (declaring sampling, elicitation and roots), `servers/add` with the scenario's
//! URL, `tools/list`, the `tools/call` the scenario expects, answering the sidecar's requests
//! (an elicitation is accepted with the form's defaults), then `shutdown`. Everything
//! scenario-specific is here; the sidecar does what it does for every host. The suite names the
//! scenario in `MCP_CONFORMANCE_SCENARIO`; see README "Conformance".

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::host_peer::{HostPeer, PeerError};

/// The longest wait for any one answer of the sidecar (the suite's own timeout is 30 s).
const ANSWER_WITHIN: Duration = Duration::from_secs(25);

/// The name the scenario's server is added under.
const SERVER: &str = "conformance";

/// Runs the scenario against `url`; `Err` (printed by the caller, exit 1) when a step failed.
pub async fn run(url: &str) -> Result<(), PeerError> {
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
        },
    });
    peer.request("initialize", initialize, ANSWER_WITHIN)
        .await?;
    let added = json!({"name": SERVER, "config": {"type": "http", "url": url}});
    let status = peer.request("servers/add", added, ANSWER_WITHIN).await?;
    if status["state"] != "ready" {
        return Err(failed("servers/add", &status["lastError"]));
    }
    let listing = peer.request("tools/list", json!({}), ANSWER_WITHIN).await?;
    let tools = listing["tools"].as_array().cloned().unwrap_or_default();
    let Some((tool, arguments)) = call_for(scenario, &tools) else {
        return Ok(());
    };
    let Some(entry) = tools.iter().find(|t| t["tool"] == tool) else {
        return Err(failed("tools/list", &json!(format!("no tool `{tool}`"))));
    };
    let call = json!({"name": entry["name"], "arguments": arguments});
    let result = peer.request("tools/call", call, ANSWER_WITHIN).await?;
    if result["isError"] == true {
        return Err(failed("tools/call", &result["text"]));
    }
    Ok(())
}

/// The tool a scenario expects to be called, and its arguments.
fn call_for(scenario: &str, tools: &[Value]) -> Option<(&'static str, Value)> {
    match scenario {
        "tools_call" => Some(("add_numbers", json!({"a": 2, "b": 3}))),
        "sse-retry" => Some(("test_reconnection", json!({}))),
        "elicitation-sep1034-client-defaults" => {
            Some(("test_client_elicitation_defaults", json!({})))
        }
        // Echo a tool's input schema back exactly as the sidecar listed it (`mcp` format).
        "json-schema-2020-12-preservation" => {
            let focal = tools
                .iter()
                .find(|t| t["tool"] == "json_schema_2020_12_tool")?;
            let schema = focal["definition"]["inputSchema"].clone();
            Some(("json_schema_echo", json!({"schema": schema})))
        }
        _ => None,
    }
}

/// The host's answer to one of the sidecar's requests.
fn answer(method: &str, params: &Value) -> Result<Value, Value> {
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
        let answer = answer(
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
        answer(method, &json!({})).err()?["code"].as_i64()
    }
}
