//! The [`Asker`] trait, the [`Question`] it takes, and [`Nobody`], the owner that declared
//! nothing.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::capabilities::Capabilities;
use super::error::AskError;

/// One question for the owner of the session.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    /// The server the question comes from (the owner shows it: who is asking).
    pub server: String,
    /// What is asked, as an MCP method name (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`), or a method of the sidecar's own (an authorization step).
    pub method: String,
    /// The method's params (an object), secrets already masked by the caller.
    pub params: Value,
    /// The key a 2026-07-28 server gave the question in its `inputRequests`: a gateway asking a
    /// 2026-07-28 client of its own keeps it, so the client sees the server's own key.
    pub key: Option<String>,
}

/// Whoever owns a session and can answer its servers' questions.
pub trait Asker: Send + Sync {
    /// What the owner declared it can answer (sent to servers as the MCP client capabilities).
    fn capabilities(&self) -> &Capabilities;

    /// Asks `question`. The future ends exactly once (see the module doc); dropping it withdraws
    /// the question.
    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>>;
}

/// The owner that declared nothing: every question is refused without asking (a session with no
/// host, such as `inspect`, or a host that declared no capability).
#[derive(Debug, Default)]
pub(crate) struct Nobody {
    capabilities: Capabilities,
}

impl Asker for Nobody {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let refused = self.capabilities.admit(&question.method, &question.params);
        Box::pin(async move {
            refused?;
            Err(AskError::NotDeclared {
                method: question.method,
            })
        })
    }
}

/// A shared [`Nobody`].
pub(crate) fn nobody() -> Arc<dyn Asker> {
    Arc::new(Nobody::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn nobody_refuses_everything_without_asking() {
        let q = Question {
            server: "s".into(),
            method: "sampling/createMessage".into(),
            params: json!({}),
            key: None,
        };
        let e = nobody().ask(q).await.unwrap_err();
        assert_eq!(e.rpc_code(), -32601);
        assert_eq!(nobody().capabilities().to_mcp(), json!({}));
    }
}
