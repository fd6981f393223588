//! The browser step of a person at a terminal, for an OAuth login: the authorization URL printed
//! for them to open; the redirect comes to the loopback listener. `login` prints the URL on stdout
//! (a script may read it); a command that logs in to a `--url` server on its way to its own output
//! prints it on stderr, next to its progress lines. The one question this owner answers is
//! `auth/authorize`: a server's sampling or elicitation is refused as by nobody.

use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::output::{stderr_line, stdout};
use crate::ask::{AskError, Asker, Capabilities, Question};

pub(crate) struct PrintUrl {
    capabilities: Capabilities,
    url_on_stdout: bool,
}

impl PrintUrl {
    /// The URL on stdout: `login`, whose only output it is.
    pub(crate) fn on_stdout() -> Self {
        Self::new(true)
    }

    /// The URL on stderr: a command whose stdout is its own answer.
    pub(crate) fn on_stderr() -> Self {
        Self::new(false)
    }

    fn new(url_on_stdout: bool) -> Self {
        Self {
            capabilities: Capabilities {
                auth: Some(Default::default()),
                ..Default::default()
            },
            url_on_stdout,
        }
    }
}

impl Asker for PrintUrl {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }

    fn ask(&self, question: Question) -> BoxFuture<'static, Result<Value, AskError>> {
        let admitted = self.capabilities.admit(&question.method, &question.params);
        let url_on_stdout = self.url_on_stdout;
        Box::pin(async move {
            admitted?;
            let text = |k: &str| question.params.get(k).and_then(Value::as_str).unwrap_or("");
            stderr_line(&format!(
                "Open this URL in a browser to log in to server `{}` (the sidecar waits for the redirect to {}):",
                question.server,
                text("redirectUri")
            ));
            if url_on_stdout {
                stdout(&format!("{}\n", text("url")));
            } else {
                stderr_line(text("url"));
            }
            Ok(json!({"action": "opened"}))
        })
    }
}
