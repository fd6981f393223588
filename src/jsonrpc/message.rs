//! JSON-RPC 2.0 wire types: classifying an incoming line, and encoding outgoing messages as one line.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::params::ParamsForm;

/// A request id: JSON-RPC allows a string or a number (MCP forbids null).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestId {
    Number(i64),
    String(String),
    /// Any other number (≥ 2^63, below -2^63, a fraction, an exponent): echoed as the peer wrote it.
    Text(NumberText),
}

/// A numeric id that does not fit an `i64`, kept as its exact text so the answer carries the very
/// id the peer sent (parsing it into a float would echo `18446744073709551616` as `1.8446744073709552e19`).
/// Two ids are the same when they denote the same JSON number as serde reads it: a cancel that names
/// `1e3` finds the request sent as `1e3` (the notification's params arrive already parsed, text lost).
#[derive(Clone, Debug)]
pub struct NumberText {
    exact: Box<str>,
    canonical: Box<str>,
}

impl NumberText {
    /// `exact` must be the text of a JSON number (as the JSON parser accepted it).
    fn new(exact: &str) -> Self {
        let canonical = serde_json::from_str::<serde_json::Number>(exact)
            .map(|n| n.to_string())
            .unwrap_or_else(|_| exact.to_owned());
        Self {
            exact: exact.into(),
            canonical: canonical.into(),
        }
    }

    /// The exact text the peer wrote.
    pub fn as_str(&self) -> &str {
        &self.exact
    }
}

impl PartialEq for NumberText {
    fn eq(&self, other: &Self) -> bool {
        self.canonical == other.canonical
    }
}

impl Eq for NumberText {}

impl std::hash::Hash for NumberText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.canonical.hash(state);
    }
}

impl RequestId {
    /// The id a JSON number denotes: an `i64` when it is one, else its exact text.
    fn from_number_text(text: &str) -> Self {
        match text.parse::<i64>() {
            Ok(n) => Self::Number(n),
            Err(_) => Self::Text(NumberText::new(text)),
        }
    }

    /// The id a parsed JSON value denotes (`None`: not a number or a string).
    fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::Number(n) => Some(match n.as_i64() {
                Some(n) => Self::Number(n),
                None => Self::Text(NumberText::new(&n.to_string())),
            }),
            Value::String(s) => Some(Self::String(s.clone())),
            _ => None,
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => s.serialize_i64(*n),
            Self::String(text) => s.serialize_str(text),
            Self::Text(text) => {
                let raw = serde_json::value::RawValue::from_string(text.exact.to_string())
                    .map_err(serde::ser::Error::custom)?;
                raw.serialize(s)
            }
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(&value)
            .ok_or_else(|| serde::de::Error::custom("an id must be a number or a string"))
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
            Self::Text(t) => f.write_str(t.as_str()),
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
pub enum Incoming<P = Value> {
    Request {
        id: RequestId,
        method: String,
        params: Option<P>,
    },
    Notification {
        method: String,
        params: Option<P>,
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

// Every field is optional here so that classification, not serde, decides what is wrong. The id
// is kept as its text: a number beyond `i64` must be echoed exactly as written.
#[derive(Deserialize)]
struct Raw<'a, P> {
    #[serde(default, borrow)]
    jsonrpc: Option<Text<'a>>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    method: Option<String>,
    params: Option<P>,
    #[serde(default, deserialize_with = "present_value")]
    result: Option<Value>,
    error: Option<ErrorObject>,
}

/// A string member borrowed from the line when it has no escapes (serde borrows a `Cow` only as a
/// field of its own, not inside an `Option`): `jsonrpc` is only compared, so it costs no allocation.
#[derive(Deserialize)]
#[serde(transparent)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

impl Text<'_> {
    fn is_2_0(text: &Option<Self>) -> bool {
        text.as_ref().is_some_and(|t| t.0 == "2.0")
    }
}

/// Distinguishes `"id": null` (Some(null)) from an absent id (None).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Distinguishes `"result": null` (Some(Null)) from an absent result (None).
fn present_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Only the id, to answer a message whose other members have the wrong type.
#[derive(Deserialize)]
struct IdOnly<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
}

/// The id an id member's text denotes (`None`: null, an object, an array, a boolean).
fn id_of(raw: &RawValue) -> Option<RequestId> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str(text).ok().map(RequestId::String),
        Some(b'-' | b'0'..=b'9') => Some(RequestId::from_number_text(text)),
        _ => None,
    }
}

impl<P: ParamsForm> Incoming<P> {
    /// Parses one line. The outer error is a JSON syntax error; the inner one a JSON text that is not a
    /// JSON-RPC 2.0 message.
    pub fn parse(line: &[u8]) -> Result<Result<Self, NotJsonRpc>, serde_json::Error> {
        // serde would happily read a struct from a JSON array; a message must be an object.
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            serde_json::from_slice::<serde::de::IgnoredAny>(line)?;
            return Ok(Err(NotJsonRpc {
                id: None,
                reason: "a message must be a JSON object (batches are not supported)",
            }));
        }
        match serde_json::from_slice::<Raw<P>>(line) {
            Ok(raw) => Ok(classify(raw)),
            // Valid JSON with a member of the wrong type: an invalid request, answered to its id
            // when that can be read. Only text that is not JSON at all is a parse error.
            Err(e) => {
                serde_json::from_slice::<serde::de::IgnoredAny>(line).map_err(|_| e)?;
                let id = serde_json::from_slice::<IdOnly>(line)
                    .ok()
                    .and_then(|m| m.id)
                    .and_then(id_of);
                Ok(Err(NotJsonRpc {
                    id,
                    reason: "a member has the wrong type (method: string, error: object)",
                }))
            }
        }
    }
}

/// The [`NotJsonRpc::reason`] of an error response with `"id": null`: valid JSON-RPC 2.0 (what a
/// peer sends when it could not read a request's id), but it answers no request of ours. A client
/// drops it; it is no reason to end a session.
pub const NULL_ID_ERROR: &str = "an error response with a null id (it answers no request)";

fn classify<P: ParamsForm>(raw: Raw<P>) -> Result<Incoming<P>, NotJsonRpc> {
    let id = match raw.id {
        None => None,
        Some(raw_id)
            if raw_id.get().trim() == "null"
                && raw.method.is_none()
                && raw.result.is_none()
                && raw.error.is_some()
                && Text::is_2_0(&raw.jsonrpc) =>
        {
            return Err(NotJsonRpc {
                id: None,
                reason: NULL_ID_ERROR,
            })
        }
        Some(raw_id) => match id_of(raw_id) {
            Some(id) => Some(id),
            None => {
                return Err(NotJsonRpc {
                    id: None,
                    reason: "id must be a number or a string",
                })
            }
        },
    };
    if !Text::is_2_0(&raw.jsonrpc) {
        return Err(NotJsonRpc {
            id,
            reason: "jsonrpc must be \"2.0\"",
        });
    }
    if let Some(params) = &raw.params {
        if !params.is_structured() {
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

/// Encodes a success response whose result is JSON text already (`result` must be one valid JSON
/// value, which this does not check): the text is copied into the line as it is, never parsed or
/// re-serialised, so a large cached answer costs one copy.
pub fn encode_raw_response(id: Option<&RequestId>, result: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + 64);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    // Serialising an id cannot fail (an id of exact text was valid JSON when it was read).
    if serde_json::to_writer(&mut out, &id).is_err() {
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result.as_bytes());
    out.extend_from_slice(b"}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_responses_match_encoded_ones() {
        for id in [
            Some(RequestId::Number(3)),
            Some(RequestId::String("a\"b".into())),
            None,
        ] {
            let value = json!({"tools": [{"name": "x"}], "fingerprint": "f"});
            assert_eq!(
                encode_raw_response(id.as_ref(), &value.to_string()),
                encode_response(id.as_ref(), Ok(&value))
            );
        }
    }

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
    fn the_version_member_is_borrowed_from_the_line() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let raw: Raw<Value> = serde_json::from_slice(line).unwrap();
        assert!(matches!(raw.jsonrpc, Some(Text(Cow::Borrowed("2.0")))));
        // Escaped, it cannot be borrowed, and still means the same.
        let escaped = br#"{"jsonrpc":"2\u002e0","id":1,"method":"ping"}"#;
        assert!(matches!(parse_bytes(escaped), Ok(Incoming::Request { .. })));
    }

    fn parse_bytes(line: &[u8]) -> Result<Incoming, NotJsonRpc> {
        Incoming::parse(line).expect("valid JSON")
    }

    #[test]
    fn rejects_what_is_not_jsonrpc_and_keeps_the_id() {
        let e = parse(r#"{"id":7,"method":"m"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::Number(7)));
        assert!(parse(r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#).is_err());
        let null_id = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#;
        assert_eq!(parse(null_id).unwrap_err().reason, NULL_ID_ERROR);
        let null_result = r#"{"jsonrpc":"2.0","id":null,"result":{}}"#;
        assert_ne!(parse(null_result).unwrap_err().reason, NULL_ID_ERROR);
        assert!(parse(r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#).is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","id":{},"method":"m"}"#).is_err());
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
        assert!(Incoming::<Value>::parse(b"not json").is_err());
    }

    fn request_id(line: &str) -> RequestId {
        match parse(line) {
            Ok(Incoming::Request { id, .. }) => id,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn numbers_beyond_i64_are_echoed_exactly() {
        for text in [
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "1.5",
            "1e3",
            "-0.0",
            "123456789012345678901234567890",
        ] {
            let id = request_id(&format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#));
            assert!(matches!(id, RequestId::Text(_)), "{text}: {id:?}");
            assert_eq!(
                encode_response(Some(&id), Ok(&json!({}))),
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{text},\"result\":{{}}}}\n").into_bytes(),
                "{text}"
            );
        }
        assert_eq!(
            request_id(r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}"#),
            RequestId::Number(i64::MIN)
        );
        assert_eq!(
            request_id(r#"{"jsonrpc":"2.0","id":"1e3","method":"m"}"#),
            RequestId::String("1e3".into())
        );
    }

    #[test]
    fn a_parsed_number_finds_the_id_sent_as_text() {
        // What `notifications/cancelled` carries: its params are parsed, the text is gone.
        for text in ["18446744073709551615", "18446744073709551616", "1e3", "1.5"] {
            let sent = request_id(&format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"m"}}"#));
            let value: Value = serde_json::from_str(text).expect("a number");
            let named: RequestId = serde_json::from_value(value).expect("an id");
            assert_eq!(sent, named, "{text}");
        }
        let e = parse(r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":5}"#).unwrap_err();
        assert_eq!(
            e.id.map(|id| id.to_string()).as_deref(),
            Some("18446744073709551616")
        );
    }
}
