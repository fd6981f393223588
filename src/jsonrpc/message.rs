//! JSON-RPC 2.0 wire types: classifying an incoming line, and encoding outgoing messages as one line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request id: JSON-RPC allows a string or a number (MCP forbids null).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// A JSON-RPC error object as received from a peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// One classified incoming message.
#[derive(Debug)]
pub enum Incoming {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: RequestId,
        result: Result<Value, ErrorObject>,
    },
}

/// Why a syntactically valid JSON text is not a JSON-RPC 2.0 message. `id` is set when it could be read,
/// so the error can be answered to the right request.
#[derive(Debug)]
pub struct NotJsonRpc {
    pub id: Option<RequestId>,
    pub reason: &'static str,
}

// Every field is optional here so that classification, not serde, decides what is wrong.
// `jsonrpc` is only compared: borrowed from the line, it costs no allocation.
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    jsonrpc: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    error: Option<ErrorObject>,
}

/// Distinguishes `"id": null` (Some(Null)) from an absent id (None).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Incoming {
    /// Parses one line. The outer error is a JSON syntax error; the inner one a JSON text that is not a
    /// JSON-RPC 2.0 message.
    pub fn parse(line: &[u8]) -> Result<Result<Incoming, NotJsonRpc>, serde_json::Error> {
        // serde would happily read a struct from a JSON array; a message must be an object.
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            serde_json::from_slice::<serde::de::IgnoredAny>(line)?;
            return Ok(Err(NotJsonRpc {
                id: None,
                reason: "a message must be a JSON object (batches are not supported)",
            }));
        }
        match serde_json::from_slice::<Raw>(line) {
            Ok(raw) => Ok(classify(raw)),
            // Valid JSON with a member of the wrong type: an invalid request, answered to its id
            // when that can be read. Only text that is not JSON at all is a parse error.
            Err(e) => {
                let value: Value = serde_json::from_slice(line).map_err(|_| e)?;
                let id = match value.get("id") {
                    Some(Value::Number(n)) => n.as_i64().map(RequestId::Number),
                    Some(Value::String(s)) => Some(RequestId::String(s.clone())),
                    _ => None,
                };
                Ok(Err(NotJsonRpc {
                    id,
                    reason: "a member has the wrong type (method: string, error: object)",
                }))
            }
        }
    }
}

fn classify(raw: Raw<'_>) -> Result<Incoming, NotJsonRpc> {
    let id = match raw.id {
        None => None,
        Some(Value::Number(n)) => match n.as_i64() {
            Some(n) => Some(RequestId::Number(n)),
            None => {
                return Err(NotJsonRpc {
                    id: None,
                    reason: "id must be an integer or a string",
                })
            }
        },
        Some(Value::String(s)) => Some(RequestId::String(s)),
        Some(_) => {
            return Err(NotJsonRpc {
                id: None,
                reason: "id must be an integer or a string",
            })
        }
    };
    if raw.jsonrpc.as_deref() != Some("2.0") {
        return Err(NotJsonRpc {
            id,
            reason: "jsonrpc must be \"2.0\"",
        });
    }
    if let Some(params) = &raw.params {
        if !params.is_object() && !params.is_array() {
            return Err(NotJsonRpc {
                id,
                reason: "params must be an object or an array",
            });
        }
    }
    match (raw.method, id) {
        (Some(method), Some(id)) => Ok(Incoming::Request {
            id,
            method,
            params: raw.params,
        }),
        (Some(method), None) => Ok(Incoming::Notification {
            method,
            params: raw.params,
        }),
        (None, Some(id)) => match (raw.result, raw.error) {
            (Some(result), None) => Ok(Incoming::Response {
                id,
                result: Ok(result),
            }),
            (None, Some(error)) => Ok(Incoming::Response {
                id,
                result: Err(error),
            }),
            _ => Err(NotJsonRpc {
                id: Some(id),
                reason: "a response needs exactly one of result and error",
            }),
        },
        (None, None) => Err(NotJsonRpc {
            id: None,
            reason: "neither a request, a notification nor a response",
        }),
    }
}

#[derive(Serialize)]
struct OutRequest<'a, P: Serialize> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct OutNotification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct OutResponse<'a, R: Serialize> {
    jsonrpc: &'static str,
    // `null` only when the id of a malformed request could not be read, as JSON-RPC requires.
    id: Option<&'a RequestId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Value>,
}

/// Room reserved up front for an encoded line: most lines fit, so they are written without the
/// repeated regrowth of an empty buffer.
const LINE_CAPACITY: usize = 512;

fn to_line<T: Serialize>(msg: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(LINE_CAPACITY);
    // Serialising our own types and `Value`s cannot fail: all map keys are strings.
    if serde_json::to_writer(&mut out, msg).is_err() {
        out.clear();
        out.extend_from_slice(b"{}");
    }
    out.push(b'\n');
    out
}

/// Encodes a request as one newline-terminated line.
pub fn encode_request<P: Serialize>(id: &RequestId, method: &str, params: Option<&P>) -> Vec<u8> {
    to_line(&OutRequest {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
}

/// Encodes a notification as one newline-terminated line.
pub fn encode_notification<P: Serialize>(method: &str, params: Option<&P>) -> Vec<u8> {
    to_line(&OutNotification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

/// Encodes a response (`Ok` → `result`, `Err` → the JSON-RPC `error` object) as one line.
pub fn encode_response<R: Serialize>(
    id: Option<&RequestId>,
    outcome: Result<&R, &Value>,
) -> Vec<u8> {
    let (result, error) = match outcome {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e)),
    };
    to_line(&OutResponse {
        jsonrpc: "2.0",
        id,
        result,
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(s: &str) -> Result<Incoming, NotJsonRpc> {
        Incoming::parse(s.as_bytes()).expect("valid JSON")
    }

    #[test]
    fn encodes_exact_wire_lines() {
        let id = RequestId::Number(3);
        assert_eq!(
            encode_request(&id, "tools/list", Some(&json!({"cursor": "c"}))),
            b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}\n"
        );
        assert_eq!(
            encode_notification::<Value>("notifications/initialized", None),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
        );
        assert_eq!(
            encode_response(Some(&RequestId::String("a".into())), Ok(&json!({}))),
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{}}\n"
        );
        assert_eq!(
            encode_response::<Value>(None, Err(&json!({"code": -32700, "message": "m"}))),
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"m\"}}\n"
        );
    }

    #[test]
    fn classifies_requests_notifications_and_responses() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#),
            Ok(Incoming::Request { .. })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"m"}"#),
            Ok(Incoming::Notification { .. })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":"x","result":null}"#),
            Ok(Incoming::Response {
                result: Ok(Value::Null),
                ..
            })
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}"#),
            Ok(Incoming::Response {
                result: Err(ErrorObject { code: -1, .. }),
                ..
            })
        ));
    }

    #[test]
    fn rejects_what_is_not_jsonrpc_and_keeps_the_id() {
        let e = parse(r#"{"id":7,"method":"m"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(7)));
        assert!(parse(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":3}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1}}"#).is_err());
        assert!(
            parse("[1,2]").is_err(),
            "an array is valid JSON but not a message"
        );
        assert!(parse(r#"["2.0", 5, "ping", null, null, null]"#).is_err());
        assert_eq!(
            parse(r#"{"jsonrpc":"2.0","id":8,"method":5}"#)
                .unwrap_err()
                .id,
            Some(RequestId::Number(8))
        );
        assert!(Incoming::parse(b"not json").is_err());
    }
}
