//! [`Reply`]: a request's successful outcome — a value to serialise, a call's answer (serialised
//! from its struct, no map built), or JSON text the sidecar already holds (a cached `tools/list`
//! answer) that goes into the response line as it is.

use std::sync::Arc;

use serde_json::Value;

use super::call_result::CallAnswer;
use crate::error::Result;
use crate::jsonrpc::{encode_raw_response, encode_response, RequestId};

pub(super) enum Reply {
    Value(Value),
    /// A `tools/call` result (boxed: the other outcomes stay small).
    Call(Box<CallAnswer>),
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
        Ok(Reply::Call(answer)) => encode_response(id, Ok(answer.as_ref())),
        Ok(Reply::Json(text)) => encode_raw_response(id, text),
        Err(e) => encode_response::<Value>(id, Err(&e.to_rpc_error())),
    }
}
