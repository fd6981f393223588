//! The SSE parser with its bound.
//!
//! Input: byte 0 picks the bound, byte 1 the chunk size the stream is fed in, the rest is the
//! stream. Beyond "no panic":
//! - the events (and whether the bound tripped) are the same fed whole and fed in chunks, so a
//!   line end, a CRLF or a code point split across chunks changes nothing;
//! - every event has a non-empty name and non-empty data, and its data (what is buffered for it)
//!   is never longer than the bound;
//! - the last event id never contains NUL.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::mcp::transport::sse_parser::{SseEvent, SseParser};
use mcp_sidecar::mcp::transport::TransportError;

const BOUNDS: [usize; 8] = [1, 2, 4, 16, 64, 256, 4096, 1 << 20];

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    events: Vec<SseEvent>,
    tripped: bool,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

fuzz_target!(|data: &[u8]| {
    let [bound, chunk, stream @ ..] = data else {
        return;
    };
    let max = BOUNDS[usize::from(*bound) % BOUNDS.len()];
    let chunk = 1 + usize::from(*chunk % 16);
    let whole = run(max, std::iter::once(stream));
    let chunked = run(max, stream.chunks(chunk));
    assert_eq!(whole, chunked, "bound {max}, chunk {chunk}");
    for event in &whole.events {
        assert!(!event.name.is_empty());
        assert!(!event.data.is_empty());
        assert!(
            event.data.len() <= max,
            "event data of {} bytes over the {max}-byte bound",
            event.data.len()
        );
    }
    if let Some(id) = &whole.last_event_id {
        assert!(!id.contains('\0'));
    }
});

fn run<'a>(max: usize, chunks: impl Iterator<Item = &'a [u8]>) -> Outcome {
    let mut parser = SseParser::new(max);
    let mut events = Vec::new();
    let mut tripped = false;
    for chunk in chunks {
        match parser.feed(chunk, &mut events) {
            Ok(()) => {}
            Err(TransportError::TooLong { limit }) => {
                assert_eq!(limit, max);
                tripped = true;
                break;
            }
            Err(other) => panic!("the parser failed with something other than its bound: {other}"),
        }
    }
    Outcome {
        events,
        tripped,
        last_event_id: parser.last_event_id().map(str::to_owned),
        retry_ms: parser.retry_ms(),
    }
}
