//! The seam through which a lower layer asks whoever owns the session: "the server wants a model
//! completion / a user's answer / the roots — ask the host". Lower layers (`mcp`, and whatever
//! carries a question in another protocol era or from another place, such as an authorization
//! step) hold an [`Asker`] and never learn who answers: the host protocol's session
//! (`host::asks`), an MCP client of the aggregate, or [`Nobody`].
//!
//! A question is `{server, method, params}`, independent of which era or transport raised it:
//! a 2025-era server request and a 2026-era input request carry the same `sampling/createMessage`,
//! `elicitation/create` or `roots/list` and get the same answer. What the owner can answer is
//! its [`Capabilities`], which it declared; a question it did not declare is refused without
//! asking ([`AskError::NotDeclared`], JSON-RPC -32601), as is one that needs a mode or feature it
//! did not declare ([`AskError::Unsupported`], -32602).
//!
//! Contract of [`Asker::ask`]: the future ends exactly once — with the owner's answer, its error,
//! a timeout (the owner bounds every question), or because the owner is gone or stopping — and
//! dropping it withdraws the question (the owner is told, if it was asked).
//!
//! Its files:
//! - `asker`: The `Asker` trait, the `Question` it takes, and `Nobody`, the owner that declared nothing.
//! - `capabilities`: What the owner of a session declared it can answer, in the shape of MCP's client capabilities (the …
//! - `error`: `AskError`.
//! - `request_capabilities`: The capabilities of the client whose request is being served, for the length of that request.
//! - `shown_url`: The one rule for a URL put in front of a person — an elicitation in URL mode, the authorization …

mod asker;
mod capabilities;
mod error;
pub(crate) mod request_capabilities;
mod shown_url;

pub(crate) use asker::{nobody, Asker, Question};
pub(crate) use capabilities::{Capabilities, Elicitation, Roots, Sampling, DECLARABLE};
pub(crate) use error::AskError;
