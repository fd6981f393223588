//! The fields every `tools/call` result has (§10), whoever answered the call: a server, or the
//! sidecar itself for the `search_tools` meta-tool. Serialised straight into the response line
//! (no JSON map is built for them on the way: a call's answer is the hottest line there is).

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::convert::CallOutput;
use crate::names::{ServerName, ToolName};

/// A `tools/call` result. Its fields are declared in the order a JSON object of them always had
/// on the wire (sorted by name), so the answer's bytes are what they were when it was a map.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CallAnswer {
    content: Value,
    duration_ms: f64,
    is_error: bool,
    output: Value,
    server: ServerName,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<Value>,
    text: String,
    tool: ToolName,
    /// What the result was cut from (`truncated`, §10), when it was held to its budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Value>,
}

impl CallAnswer {
    /// `isError`: the tool failed (its result says so), though the call itself went through.
    pub(super) fn is_error(&self) -> bool {
        self.is_error
    }
}

/// The fields of every `tools/call` result.
pub(super) fn call_result(
    converted: CallOutput,
    server: ServerName,
    tool: ToolName,
    duration: Duration,
) -> CallAnswer {
    CallAnswer {
        content: converted.content,
        duration_ms: duration.as_secs_f64() * 1000.0,
        is_error: converted.is_error,
        output: converted.output,
        server,
        structured_content: converted.structured_content,
        text: converted.text,
        tool,
        truncated: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The struct writes the bytes the map it replaced wrote: the same keys, in the same order.
    #[test]
    fn the_answer_serialises_as_the_sorted_map_did() {
        let answer = CallAnswer {
            content: json!([{"type": "text", "text": "hi"}]),
            duration_ms: 1.5,
            is_error: false,
            output: json!("hi"),
            server: ServerName::from("fx"),
            structured_content: Some(json!({"message": "hi"})),
            text: "hi".into(),
            tool: ToolName::from("echo"),
            truncated: Some(json!({"originalBytes": 10})),
        };
        let as_map = json!({
            "isError": false, "content": [{"type": "text", "text": "hi"}], "text": "hi",
            "output": "hi", "server": "fx", "tool": "echo", "durationMs": 1.5,
            "structuredContent": {"message": "hi"}, "truncated": {"originalBytes": 10},
        });
        assert_eq!(
            serde_json::to_string(&answer).unwrap(),
            serde_json::to_string(&as_map).unwrap()
        );
        let plain = CallAnswer {
            structured_content: None,
            truncated: None,
            ..answer
        };
        let text = serde_json::to_string(&plain).unwrap();
        assert!(
            !text.contains("structuredContent") && !text.contains("truncated"),
            "{text}"
        );
    }
}
