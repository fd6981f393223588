//! One request being served: the aggregate, the client's session, the request's id and era, and
//! where the messages that belong to it go before its answer, and the trace it is part of.

use crate::aggregate::access::Rules;
use crate::aggregate::session::era::Era;
use crate::aggregate::session::legacy::Session;
use crate::aggregate::shared::Aggregate;
use crate::jsonrpc::RequestId;
use crate::serving::Sink;
use crate::telemetry::{Carried, TraceContext};

/// One request being served.
pub(crate) struct Request<'a> {
    pub aggregate: &'a Aggregate,
    /// The client's legacy session (a throwaway one for a modern HTTP request).
    pub session: &'a Session,
    pub id: &'a RequestId,
    pub era: &'a Era,
    /// Where the request's own messages go before its answer.
    pub sink: &'a Sink,
    /// The W3C trace context of the HTTP request's headers (`_meta` wins when it has one).
    pub traced: Option<Carried>,
    /// The request span's context, which its downstream calls are children of (set by
    /// `dispatch::request`).
    pub trace: TraceContext,
    /// What the client may see and call (`None`: everything, as over stdio).
    pub rules: Option<&'a Rules>,
}

impl Request<'_> {
    /// Whether the client may use `server`.
    pub(crate) fn may_use(&self, server: &str) -> bool {
        self.rules.is_none_or(|r| r.server(server))
    }
}
