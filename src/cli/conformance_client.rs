//! `mcp-sidecar conformance-client <url>`: a small MCP client for the official conformance suite,
//! built from the sidecar's own session and HTTP transport (nothing conformance-specific below it).
//! The suite names the scenario in `MCP_CONFORMANCE_SCENARIO`; see README "Conformance".

use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;

use crate::config::RemoteKind;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::mcp::transport::{http, http_common::RemoteOptions};
use crate::mcp::{Client, ClientOptions};

/// Runs the scenario against `url`; the error is printed by the caller.
pub async fn run(url: &str) -> Result<()> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let url = reqwest::Url::parse(url)
        .map_err(|e| Error::new(ErrorCode::InvalidParams, format!("bad URL {url}: {e}")))?;
    let options = RemoteOptions {
        server: "conformance".to_owned(),
        url,
        headers: Vec::new(),
        max_message_bytes: limits::DEFAULT_MAX_MESSAGE_BYTES,
        connect_timeout: Duration::from_secs(10),
    };
    let transport = http::transport(options, RemoteKind::Http)?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let (events, _rx) = mpsc::unbounded_channel();
    let client = Client::connect(
        transport,
        ClientOptions {
            server: "conformance".to_owned(),
            ..Default::default()
        },
        deadline,
        events,
    )
    .await?;
    let tools = client.list_tools(deadline).await?;
    let call = match scenario.as_str() {
        "tools_call" => Some(("add_numbers", json!({"a": 2, "b": 3}))),
        "sse-retry" => Some(("test_reconnection", json!({}))),
        _ => None,
    };
    if let Some((tool, arguments)) = call {
        if tools.iter().any(|t| t["name"] == tool) {
            let reply = client
                .call_tool(tool, arguments, Duration::from_secs(15))
                .await?;
            client.reply_outcome(reply)?;
        }
    }
    client.close().await;
    Ok(())
}
