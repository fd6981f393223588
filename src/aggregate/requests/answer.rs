//! A request's answer as the aggregate hands it to its carrier (stdio or HTTP): a value to
//! serialise, or JSON text the aggregate already holds (a `tools/list` listing, `listing`) that
//! goes into the response line as it is, never parsed or serialised again.

use std::sync::Arc;

use serde_json::Value;

use super::wire::WireError;
use crate::jsonrpc::{encode_raw_response, encode_response, RequestId};

pub(crate) enum Answer {
    Value(Value),
    /// One valid JSON object, as text.
    Json(Arc<str>),
}

impl Answer {
    /// The answer as a value, when it is one (a listing held as text is not).
    pub(crate) fn value(&self) -> Option<&Value> {
        match self {
            Answer::Value(value) => Some(value),
            Answer::Json(_) => None,
        }
    }

    /// Whether it is a tool result that reports a failure (`isError: true`); a listing never is.
    pub(crate) fn is_error_result(&self) -> bool {
        self.value()
            .is_some_and(|v| v.get("isError") == Some(&Value::Bool(true)))
    }
}

impl From<Value> for Answer {
    fn from(value: Value) -> Self {
        Answer::Value(value)
    }
}

/// The response line for request `id`.
pub(crate) fn line(id: Option<&RequestId>, outcome: &Result<Answer, WireError>) -> Vec<u8> {
    match outcome {
        Ok(Answer::Value(result)) => encode_response(id, Ok(result)),
        Ok(Answer::Json(text)) => encode_raw_response(id, text),
        Err(e) => encode_response::<Value>(id, Err(&e.to_json())),
    }
}
