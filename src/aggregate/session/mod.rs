//! A client's session with the aggregate and what it hears, in both eras:
//! - `lifecycle`: `initialize` (legacy), `server/discover` (modern), `logging/setLevel` (legacy).
//! - `listen`: list changes, resource updates and a legacy session's server logs;
//!   `subscriptions/listen`.
//! - `legacy`: a legacy session's state (what it negotiated, its level, its requests both ways).
//! - `era`: the protocol eras (versions, envelopes, modern results).
//! - `ids`: unguessable ids (legacy HTTP session ids, 2026-07-28 request states).

pub(super) mod era;
pub(super) mod ids;
pub(super) mod legacy;
pub(super) mod lifecycle;
pub(super) mod listen;
