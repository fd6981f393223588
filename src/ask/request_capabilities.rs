//! The capabilities of the client whose request is being served, for the length of that request:
//! what a gateway's 2026-07-28 servers must be told, per request, that their client can answer.
//!
//! The aggregate (`mcp` mode) runs each client request that may reach a server in a task scoped
//! with what that client declared (a 2026-07-28 request's `_meta` capabilities, a legacy session's
//! `initialize` ones); the MCP client (`mcp`) reads it when it writes a modern request's
//! envelope, so a server never asks for what the client cannot answer (and refuses a tool that
//! needs it with -32021 itself). Outside such a task — a host session, whose declaration is the
//! session's own — nothing is set and the session's declaration stands.

use std::future::Future;

use super::Capabilities;

tokio::task_local! {
    static REQUEST_CAPABILITIES: Capabilities;
}

/// Runs `work` with `declared` as its client's capabilities.
pub(crate) fn scoped<F: Future>(
    declared: Capabilities,
    work: F,
) -> impl Future<Output = F::Output> {
    REQUEST_CAPABILITIES.scope(declared, work)
}

/// The capabilities of the client whose request this task serves, if it serves one.
pub(crate) fn current() -> Option<Capabilities> {
    REQUEST_CAPABILITIES.try_with(Clone::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::Sampling;

    #[tokio::test]
    async fn set_inside_the_scope_only() {
        assert!(current().is_none());
        let declared = Capabilities {
            sampling: Some(Sampling::default()),
            ..Capabilities::default()
        };
        let seen = scoped(declared, async { current() }).await;
        assert!(seen.and_then(|c| c.sampling).is_some());
        assert!(current().is_none());
    }
}
