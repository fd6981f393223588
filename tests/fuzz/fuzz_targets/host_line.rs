//! The host line decoder: the bounded `LineReader` over arbitrary bytes, then `Incoming::parse` of
//! every line it hands out.
//!
//! Input: byte 0 picks the line bound, byte 1 the read-buffer capacity (so a line is split across
//! reads at every possible point), the rest is the stream. Beyond "no panic":
//! - the lines and bound errors are exactly those of a plain model (split on `\n`, one `\r` before it
//!   stripped, a segment over the bound is one `TooLong` and reading resumes after it), so no line
//!   handed out is ever longer than the bound and none contains a newline;
//! - a message that classifies re-encodes (with the crate's own encoders) as exactly one line that
//!   classifies the same;
//! - the params the host's reader keeps as text (`Incoming<Params>`) are the same message's params
//!   read as a tree, whenever a tree can hold them.
#![no_main]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::jsonrpc::{
    encode_notification, encode_request, encode_response, Incoming, LineError, LineReader, Params,
};
use serde_json::Value;

const BOUNDS: [usize; 10] = [1, 2, 3, 8, 16, 64, 256, 1024, 4096, 1 << 20];

/// What one call of `next_line` yields, owned.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Line(Vec<u8>),
    TooLong,
}

fuzz_target!(|data: &[u8]| {
    let [bound, capacity, stream @ ..] = data else {
        return;
    };
    let max = BOUNDS[usize::from(*bound) % BOUNDS.len()];
    let capacity = 1 + usize::from(*capacity % 32);
    let got = read_all(stream, max, capacity);
    assert_eq!(got, model(stream, max), "bound {max}, capacity {capacity}");
    for item in &got {
        if let Item::Line(line) = item {
            assert!(line.len() <= max);
            assert!(!line.contains(&b'\n'));
            roundtrip(line);
        }
    }
});

/// Every item of the stream, polled to the end. A byte slice is always ready, so one poll per call
/// must finish it: `Pending` would mean the reader waits on something that never comes.
fn read_all(stream: &[u8], max: usize, capacity: usize) -> Vec<Item> {
    let reader = tokio::io::BufReader::with_capacity(capacity, stream);
    let mut lines = LineReader::new(reader, max);
    let mut out = Vec::new();
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        let next = pin!(lines.next_line());
        let Poll::Ready(result) = next.poll(&mut cx) else {
            panic!("the line reader is not ready on an in-memory stream");
        };
        match result {
            Ok(Some(line)) => out.push(Item::Line(line.to_vec())),
            Ok(None) => return out,
            Err(LineError::TooLong { limit }) => {
                assert_eq!(limit, max);
                out.push(Item::TooLong);
            }
            Err(LineError::Io(e)) => panic!("an in-memory read failed: {e}"),
        }
        // Each item consumes at least one byte, so this bounds the loop.
        assert!(out.len() <= stream.len());
    }
}

/// The reference: split on `\n`; a segment (its `\r` counted) over `max` is `TooLong`; a final
/// segment without a newline is a line unless empty.
fn model(stream: &[u8], max: usize) -> Vec<Item> {
    let mut segments: Vec<&[u8]> = stream.split(|b| *b == b'\n').collect();
    if segments.last().is_some_and(|s| s.is_empty()) {
        segments.pop();
    }
    segments
        .into_iter()
        .map(|s| {
            if s.len() > max {
                Item::TooLong
            } else {
                Item::Line(s.strip_suffix(b"\r").unwrap_or(s).to_vec())
            }
        })
        .collect()
}

/// A classified message, re-encoded, is one line that classifies the same.
fn roundtrip(line: &[u8]) {
    let Ok(Ok(message)) = Incoming::<Value>::parse(line) else {
        return;
    };
    same_params_as_text(line, &message);
    let encoded = match &message {
        Incoming::Request { id, method, params } => encode_request(id, method, params.as_ref()),
        Incoming::Notification { method, params } => encode_notification(method, params.as_ref()),
        Incoming::Response { id, result } => match result {
            Ok(value) => encode_response(Some(id), Ok(value)),
            Err(error) => {
                let error = serde_json::to_value(error).expect("an error object serialises");
                encode_response::<Value>(Some(id), Err(&error))
            }
        },
    };
    let body = encoded
        .strip_suffix(b"\n")
        .expect("an encoded message ends with a newline");
    assert!(!body.contains(&b'\n'), "an encoded message is one line");
    let again = match Incoming::<Value>::parse(body) {
        Ok(Ok(again)) => again,
        Ok(Err(e)) => panic!("re-encoded message is not JSON-RPC: {}", e.reason),
        Err(e) => panic!("re-encoded message is not JSON: {e}"),
    };
    match (&message, &again) {
        (
            Incoming::Request { id, method, params },
            Incoming::Request {
                id: id2,
                method: method2,
                params: params2,
            },
        ) => assert!(id == id2 && method == method2 && params == params2),
        (
            Incoming::Notification { method, params },
            Incoming::Notification {
                method: method2,
                params: params2,
            },
        ) => assert!(method == method2 && params == params2),
        (
            Incoming::Response { id, result },
            Incoming::Response {
                id: id2,
                result: result2,
            },
        ) => assert!(id == id2 && result == result2),
        _ => panic!("re-encoded message changed kind: {message:?} became {again:?}"),
    }
}

/// The host's reader keeps params as text: the same message, with the same params once read.
fn same_params_as_text(line: &[u8], tree: &Incoming) {
    let text = match Incoming::<Params>::parse(line) {
        Ok(Ok(text)) => text,
        _ => panic!("a line that classifies as a tree classifies with its params as text"),
    };
    let (expected, kept) = match (tree, &text) {
        (Incoming::Request { params, .. }, Incoming::Request { params: kept, .. })
        | (Incoming::Notification { params, .. }, Incoming::Notification { params: kept, .. }) => {
            (params, kept)
        }
        (Incoming::Response { .. }, Incoming::Response { .. }) => return,
        _ => panic!("the two readings classify a line differently"),
    };
    let read = kept.as_ref().map(|p| {
        serde_json::from_str::<Value>(p.text()).expect("params kept as text are JSON")
    });
    assert_eq!(&read, expected, "params as text read back differently");
}
