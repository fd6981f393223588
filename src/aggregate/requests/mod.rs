//! A client's request served, from its routing to its answer:
//! - `dispatch`: a request in its era → its handler; notifications → the session.
//! - `request`: one request being served (the aggregate, session, id, era, sink, trace, rules).
//! - `tools`: `tools/list` and `tools/call` through the registry; `pages`: `tools/list` pages and
//!   their opaque cursor.
//! - `surface`: resources, prompts, completion and resource subscriptions of every server;
//!   `owners`: which server listed a URI, template or prompt name.
//! - `answering`: a request run as a task while its server's questions go to its client;
//!   `asks`: the aggregate's side of the `ask` seam; `input`: requests parked for a 2026-07-28
//!   client's answers.
//! - `progress`: a call's progress under the client's token; `logs`: the servers' log messages as
//!   a client gets them.
//! - `wire`: errors as the aggregate's client sees them (MCP's error codes); `answer`: a
//!   request's outcome as a value or as JSON text already made; `listing`: `tools/list` kept as
//!   JSON text per tool set and access rule set.

pub(super) mod answer;
pub(super) mod answering;
pub(super) mod asks;
pub(super) mod dispatch;
pub(super) mod input;
pub(super) mod listing;
pub(super) mod logs;
pub(super) mod owners;
pub(super) mod pages;
pub(super) mod progress;
pub(super) mod request;
pub(super) mod surface;
pub(super) mod tools;
pub(super) mod wire;
