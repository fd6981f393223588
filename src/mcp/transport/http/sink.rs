//! The transport's outbound half: [`transport`] builds it, `send` queues a message, and one
//! dispatcher task sends the queue in order, by mode: the first message connects, Streamable
//! requests get a POST task each, legacy messages are POSTed one by one. `close` aborts every task
//! and ends a Streamable session with DELETE.

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::connect::{connect, post_legacy};
use super::listen::start_listener;
use super::request::{cancel_post, post_oneway, spawn_request};
use super::shared::{post_step, Mode, Shared, State};
use crate::config::RemoteKind;
use crate::limits;
use crate::mcp::transport::http_common::{Http, InboundSource, Link, Outgoing, RemoteOptions};
use crate::mcp::transport::{BoxFuture, Inbound, MessageSink, Transport, TransportError};

/// Builds the transport; nothing is sent until the session's first message (`initialize`).
pub fn transport(options: RemoteOptions, kind: RemoteKind) -> Result<Transport, TransportError> {
    let http = Http::new(&options)?;
    let (in_tx, in_rx) = mpsc::channel(limits::HTTP_INBOUND_QUEUE);
    let (out_tx, out_rx) = mpsc::channel(limits::HTTP_OUTBOUND_QUEUE);
    let shared = Arc::new(Shared {
        link: Arc::new(Link::new(http, options.url, options.auth, in_tx)),
        kind,
        state: Mutex::new(State::default()),
        reinit: tokio::sync::Mutex::new(()),
    });
    let dispatcher = tokio::spawn(dispatch(Arc::clone(&shared), out_rx));
    shared.lock().background.push(dispatcher.abort_handle());
    Ok(Transport {
        sink: Arc::new(HttpSink {
            shared,
            out: out_tx,
        }),
        source: Box::new(InboundSource(in_rx)),
    })
}

struct HttpSink {
    shared: Arc<Shared>,
    out: mpsc::Sender<Vec<u8>>,
}

impl Drop for HttpSink {
    fn drop(&mut self) {
        // Without this the GET listener would outlive a session that was dropped unclosed.
        self.shared.abort_all();
    }
}

impl MessageSink for HttpSink {
    fn send(&self, line: Vec<u8>) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            self.out.send(line).await.map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the transport is closed")
            })
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let (sid, streamable) = {
                let state = self.shared.lock();
                (
                    state.session_id.clone(),
                    matches!(state.mode, Mode::Streamable),
                )
            };
            self.shared.abort_all();
            if let (Some(_), true) = (sid, streamable) {
                // Best effort: the server may not allow termination (405) or may be gone.
                let req = self
                    .shared
                    .with_headers(self.shared.http().client.delete(self.shared.url().clone()));
                let delete = self.shared.send(req, "DELETE of the session");
                let _ = tokio::time::timeout(limits::HTTP_DELETE_TIMEOUT, delete).await;
            }
        })
    }
}

/// Sends queued messages in order; see the module doc.
async fn dispatch(shared: Arc<Shared>, mut out: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = out.recv().await {
        let msg = Outgoing::parse(line);
        let mode = shared.lock().mode.clone();
        match mode {
            // The 2026-07-28 wire has no session to connect: each request is a POST of its own
            // (its headers derived from its body), and the only notification, a cancellation,
            // is the closing of the request's stream.
            Mode::Unknown if msg.modern.is_some() => {
                if let Some(target) = &msg.cancels {
                    cancel_post(&shared, target);
                } else if let Some(id) = msg.id.clone() {
                    spawn_request(&shared, msg, id);
                }
            }
            Mode::Unknown => {
                if let Err(e) = connect(&shared, msg).await {
                    shared.fail(e).await;
                    return;
                }
            }
            Mode::Streamable => {
                if let Some(target) = &msg.cancels {
                    cancel_post(&shared, target);
                }
                if let Some(id) = msg.id.clone() {
                    spawn_request(&shared, msg, id);
                } else {
                    let initialized = msg.method.as_deref() == Some("notifications/initialized");
                    if let Err(e) = post_oneway(&shared, shared.url(), msg.line).await {
                        shared.fail(e).await;
                        return;
                    }
                    if initialized {
                        start_listener(&shared);
                    }
                }
            }
            Mode::Legacy { post_url } => {
                let id = msg.id.clone();
                let during = post_step(msg.method.as_deref());
                match post_legacy(&shared, &post_url, msg.line, during).await {
                    Ok(None) => {}
                    Ok(Some(error)) => match id {
                        Some(id) => {
                            if !shared.deliver(Inbound::Failed { id, error }).await {
                                return;
                            }
                        }
                        None => {
                            tracing::debug!(server = %shared.http().server, "notification refused: {error}")
                        }
                    },
                    Err(e) => {
                        shared.fail(e).await;
                        return;
                    }
                }
            }
        }
    }
}
