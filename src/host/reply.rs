//! [`Reply`]: a request's successful outcome — a value to serialise, or JSON text the sidecar
//! already holds (a cached `tools/list` answer) that goes into the response line as it is.

use std::sync::Arc;

use serde_json::Value;

use crate::error::Result;
use crate::jsonrpc::{encode_raw_response, encode_response, RequestId};

pub(super) enum Reply {
    Value(Value),
    /// One valid JSON value, as text (never parsed again).
    Json(Arc<str>),
}

impl From<Value> for Reply {
    fn from(value: Value) -> Self {
        Reply::Value(value)
    }
}

/// The response line for request `id`.
pub(super) fn encode(id: Option<&RequestId>, outcome: &Result<Reply>) -> Vec<u8> {
    match outcome {
        Ok(Reply::Value(result)) => encode_response(id, Ok(result)),
        Ok(Reply::Json(text)) => encode_raw_response(id, text),
        Err(e) => encode_response::<Value>(id, Err(&e.to_rpc_error())),
    }
}
