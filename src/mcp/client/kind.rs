//! What each request of the client is (its method, the setting that bounds it, the code its
//! timeout gets), how long it may wait, and why it ended without its answer.

use crate::error::{Error, ErrorCode};
use crate::mcp::progress::{Bound, ProgressPolicy, Watching};

/// The requests the client sends. The kind, not the method text, decides which setting bounds a
/// request and which code its timeout gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    Initialize,
    ListTools,
    CallTool,
    Ping,
    ListResources,
    ListResourceTemplates,
    ReadResource,
    Subscribe,
    Unsubscribe,
    ListPrompts,
    GetPrompt,
    Complete,
    SetLogLevel,
    /// `tasks/get`, `tasks/result`, `tasks/cancel`: the task of a call (see [`super::tasks`]).
    GetTask,
    TaskResult,
    CancelTask,
    /// 2026-07-28: what the server speaks (the session's start, and its keepalive).
    Discover,
    /// 2026-07-28: the stream of list changes and resource updates.
    Listen,
}

impl RequestKind {
    pub fn method(self) -> &'static str {
        match self {
            Self::Initialize => "initialize",
            Self::ListTools => "tools/list",
            Self::CallTool => "tools/call",
            Self::Ping => "ping",
            Self::ListResources => "resources/list",
            Self::ListResourceTemplates => "resources/templates/list",
            Self::ReadResource => "resources/read",
            Self::Subscribe => "resources/subscribe",
            Self::Unsubscribe => "resources/unsubscribe",
            Self::ListPrompts => "prompts/list",
            Self::GetPrompt => "prompts/get",
            Self::Complete => "completion/complete",
            Self::SetLogLevel => "logging/setLevel",
            Self::GetTask => "tasks/get",
            Self::TaskResult => "tasks/result",
            Self::CancelTask => "tasks/cancel",
            Self::Discover => "server/discover",
            Self::Listen => "subscriptions/listen",
        }
    }

    /// The setting that bounds it, named in its timeout error.
    pub fn setting(self) -> &'static str {
        match self {
            Self::Initialize | Self::ListTools | Self::Discover => "startupTimeoutSeconds",
            Self::Ping => "keepaliveSeconds",
            // Every request the host asks for through the sidecar is bounded like a call.
            _ => "toolTimeoutSeconds",
        }
    }

    /// A tool (or a resource read, a prompt…) that takes too long is that request's failure
    /// (`TOOL_TIMEOUT`); a server that does not answer the handshake, discovery or a keepalive
    /// cannot serve (`SERVER_UNAVAILABLE`).
    pub fn timeout_code(self) -> ErrorCode {
        match self {
            Self::Initialize | Self::ListTools | Self::Ping | Self::Discover | Self::Listen => {
                ErrorCode::ServerUnavailable
            }
            _ => ErrorCode::ToolTimeout,
        }
    }
}

/// How long a request may wait for its answer.
pub(super) enum Wait<'a> {
    /// Until this instant.
    Until(tokio::time::Instant),
    /// Under a progress policy, from `started` (see [`crate::mcp::progress`]).
    Progress {
        watching: Watching,
        started: tokio::time::Instant,
        policy: &'a ProgressPolicy,
    },
}

/// Why a request ended without its answer.
pub(super) enum Ended {
    Failed(Error),
    TimedOut(Bound),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_requests_for_the_host_time_out_as_tool_timeout() {
        let kinds = [
            (
                RequestKind::Initialize,
                "initialize",
                "startupTimeoutSeconds",
                ErrorCode::ServerUnavailable,
            ),
            (
                RequestKind::ListTools,
                "tools/list",
                "startupTimeoutSeconds",
                ErrorCode::ServerUnavailable,
            ),
            (
                RequestKind::CallTool,
                "tools/call",
                "toolTimeoutSeconds",
                ErrorCode::ToolTimeout,
            ),
            (
                RequestKind::Ping,
                "ping",
                "keepaliveSeconds",
                ErrorCode::ServerUnavailable,
            ),
            (
                RequestKind::ReadResource,
                "resources/read",
                "toolTimeoutSeconds",
                ErrorCode::ToolTimeout,
            ),
            (
                RequestKind::SetLogLevel,
                "logging/setLevel",
                "toolTimeoutSeconds",
                ErrorCode::ToolTimeout,
            ),
        ];
        for (kind, method, setting, code) in kinds {
            assert_eq!(
                (kind.method(), kind.setting(), kind.timeout_code()),
                (method, setting, code),
                "{kind:?}"
            );
        }
    }
}
