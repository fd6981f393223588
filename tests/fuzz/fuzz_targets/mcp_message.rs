//! The MCP message decoder: a whole client session (`Client::connect`, `tools/list` with its pages,
//! `validate_tools`, `tools/call`, `ping`) over the stdio transport, against a "server" whose
//! stdout is the fuzz input. Every byte goes through the stdio transport's bounded line reader,
//! `Incoming::parse` and the session's reader (responses, the server's own requests,
//! notifications), then the handshake, tool-list and result decoders.
//!
//! Input: segments separated by `0xFF` (never a byte of UTF-8, so never inside JSON text).
//! Segment `i` becomes readable once the client has written `i + 1` lines, so a response can answer
//! the request it follows (a server that answered before being asked would only produce unknown
//! ids). After the last segment the server's stdout ends. Time is paused: a request that is never
//! answered ends at its deadline at once. Beyond "no panic" and "no hang": validated tools have
//! unique names and a definition in every format; converted results serialise.
#![no_main]

use std::collections::{BTreeSet, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Once};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mcp_sidecar::convert::{convert_result, definition, Options, ToolFormat};
use mcp_sidecar::mcp::tools::check_arguments;
use mcp_sidecar::mcp::transport::stdio;
use mcp_sidecar::mcp::{validate_tools, Client, ClientOptions};
use mcp_sidecar::trust::secrets::Secrets;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Largest line the transport accepts here: small, so the bound trips often.
const MAX_MESSAGE_BYTES: usize = 64 * 1024;

fuzz_target!(|data: &[u8]| {
    allow_caught_panics_in_jsonschema();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    // A fresh runtime per input: dropping it ends whatever task a session left waiting.
    runtime.block_on(session(data));
});

async fn session(data: &[u8]) {
    let gate = Arc::new(Mutex::new(Gate::default()));
    let stdout = ServerStdout {
        gate: Arc::clone(&gate),
        segments: data.split(|b| *b == 0xFF).map(<[u8]>::to_vec).collect(),
        current: Vec::new(),
        pos: 0,
        released: 0,
    };
    let transport = stdio::transport(ServerStdin { gate }, stdout, MAX_MESSAGE_BYTES);
    let (events, mut events_rx) = mpsc::unbounded_channel();
    let secrets = Secrets::collect([("API_TOKEN", "fuzz-secret-value")], &BTreeSet::new());
    let options = ClientOptions {
        server: "fuzz".into(),
        secrets,
        ..Default::default()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let Ok(client) = Client::connect(transport, options, deadline, events).await else {
        return;
    };
    let mut first_tool = None;
    if let Ok(raw) = client.list_tools(deadline).await {
        if let Ok(tools) = validate_tools("fuzz", raw.tools) {
            let mut names = BTreeSet::new();
            for tool in &tools {
                assert!(
                    names.insert(tool.name.to_string()),
                    "validated tools share a name"
                );
                for format in ToolFormat::ALL {
                    definition(format, Options { strict: true }, "mcp__fuzz__t", &tool.raw);
                }
                let _ = check_arguments(&"fuzz".into(), tool, &json!({}));
            }
            first_tool = tools.first().map(|t| t.name.to_string());
        }
    }
    let tool = first_tool.unwrap_or_else(|| "t".to_owned());
    if let Ok(reply) = client
        .call_tool(&tool, json!({"a": 1}), Duration::from_secs(30), None)
        .await
    {
        if let Ok(result) = client.reply_outcome(reply) {
            for format in ToolFormat::ALL {
                let out = convert_result(format, &result);
                serde_json::to_string(&out.output).expect("a converted result serialises");
            }
        }
    }
    let _ = client.ping(Duration::from_secs(5)).await;
    while events_rx.try_recv().is_ok() {}
    client.close().await;
}

/// Lines the client has written so far, and the reader waiting for more.
#[derive(Default)]
struct Gate {
    lines_written: usize,
    reader: Option<Waker>,
}

fn lock(gate: &Mutex<Gate>) -> std::sync::MutexGuard<'_, Gate> {
    gate.lock().unwrap_or_else(|p| p.into_inner())
}

/// The server's stdin: counts the lines the client writes and releases stdout segments.
struct ServerStdin {
    gate: Arc<Mutex<Gate>>,
}

impl AsyncWrite for ServerStdin {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut gate = lock(&self.gate);
        gate.lines_written += buf.iter().filter(|b| **b == b'\n').count();
        if let Some(waker) = gate.reader.take() {
            waker.wake();
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The server's stdout: segment `i` once `i + 1` lines were written, end of stream after the last.
struct ServerStdout {
    gate: Arc<Mutex<Gate>>,
    segments: VecDeque<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    released: usize,
}

impl AsyncRead for ServerStdout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.pos < this.current.len() {
                let n = buf.remaining().min(this.current.len() - this.pos);
                buf.put_slice(&this.current[this.pos..this.pos + n]);
                this.pos += n;
                return Poll::Ready(Ok(()));
            }
            if this.segments.is_empty() {
                return Poll::Ready(Ok(()));
            }
            let mut gate = lock(&this.gate);
            if gate.lines_written <= this.released {
                gate.reader = Some(cx.waker().clone());
                return Poll::Pending;
            }
            drop(gate);
            this.released += 1;
            this.current = this.segments.pop_front().unwrap_or_default();
            this.pos = 0;
        }
    }
}

/// `validate_tools` catches a panic of the JSON Schema library on an unknown `$schema` dialect.
/// libFuzzer's panic hook aborts at any panic, even a caught one; this hook lets exactly those
/// through (the panic still unwinds into the crate's `catch_unwind`) and aborts on all others.
fn allow_caught_panics_in_jsonschema() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_jsonschema = info.location().is_some_and(|l| {
                let file = l.file();
                file.contains("/jsonschema-") || file.contains("/referencing-")
            });
            if !in_jsonschema {
                abort_hook(info);
            }
        }));
    });
}
