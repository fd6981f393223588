//! Routing: a client's request, in its era, to its handler; a notification to the session. The
//! methods both eras share are routed once (`shared`); each era adds its own: `initialize`,
//! `ping` and `logging/setLevel` (legacy, refused in a modern envelope as removed in 2026-07-28),
//! `server/discover` and `subscriptions/listen` (modern).

use serde::Deserialize;
use serde_json::{json, Value};

use super::answer::Answer;
use super::listing::Shape;
use super::request::Request;
use super::surface::{self, List};
use super::tools;
use super::wire::WireError;
use crate::aggregate::session::era::{self, Era};
use crate::aggregate::session::legacy::Session;
use crate::aggregate::session::{lifecycle, listen};
use crate::aggregate::shared::Aggregate;
use crate::jsonrpc::RequestId;
use crate::metrics::{self, Outcome};
use crate::telemetry::{Carried, KeyValue, RequestSpan};

/// Methods 2026-07-28 removed: in a modern envelope they are unknown (-32601).
const REMOVED_IN_2026: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Results that carry cache hints in the modern era.
const CACHEABLE: [&str; 6] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// Serves a request: its result (decorated for its era) or its error, counted in the metrics and
/// traced as the child of the trace context it carries (`params._meta` first, then the HTTP
/// headers). A `tools/list` answer is JSON text already (`listing`).
pub(crate) async fn request(
    mut r: Request<'_>,
    method: &str,
    params: Option<Value>,
) -> Result<Answer, WireError> {
    let incoming = Carried::from_meta(params.as_ref()).or_else(|| r.traced.take());
    let tool = (method == "tools/call")
        .then(|| params.as_ref()?.get("name")?.as_str().map(str::to_owned))
        .flatten();
    let span = RequestSpan::start(method, tool.as_deref(), incoming.as_ref(), || {
        vec![KeyValue::new("jsonrpc.request.id", r.id.to_string())]
    });
    r.trace = span.context();
    let answer = serve(r, method, params).await;
    let (outcome, error) = match &answer {
        Ok(answer) if answer.is_error_result() => {
            (Outcome::ToolError, Some("tool_error".to_owned()))
        }
        Ok(_) => (Outcome::Ok, None),
        Err(e) => (Outcome::Error, Some(e.code.to_string())),
    };
    metrics::global().request(method, outcome);
    span.end(error.as_deref());
    answer
}

async fn serve(r: Request<'_>, method: &str, params: Option<Value>) -> Result<Answer, WireError> {
    // A leg of a request a server asked questions during is not cached (MCP 2026-07-28): neither
    // a retry nor an `input_required` answer.
    let retry = params
        .as_ref()
        .is_some_and(|p| p.get("requestState").is_some() || p.get("inputResponses").is_some());
    if method == "tools/list" {
        let shape = match r.era {
            Era::Legacy => {
                if let Some(refused) = refused_before_initialize(r.session, method) {
                    return Err(refused);
                }
                Shape::Legacy
            }
            Era::Modern(_) => Shape::Modern { cacheable: !retry },
        };
        return tools::list(r.aggregate, r.rules, shape, params.as_ref())
            .await
            .map(Answer::Json);
    }
    match r.era {
        Era::Legacy => legacy(&r, method, params).await.map(Answer::Value),
        Era::Modern(_) => {
            let result = modern(&r, method, params).await?;
            let input_required = result.get("resultType") == Some(&json!("input_required"));
            let cacheable = CACHEABLE.contains(&method) && !retry && !input_required;
            Ok(Answer::Value(era::complete(
                result,
                r.aggregate.server_info(),
                cacheable,
            )))
        }
    }
}

/// The refusal of a legacy request that needs an initialized session and came before
/// `initialize`. Over stdio the reader asks this in line order, before the request gets a task: a
/// request written before `initialize` is refused even when `initialize` follows in the same burst.
pub(crate) fn refused_before_initialize(session: &Session, method: &str) -> Option<WireError> {
    let allowed = matches!(method, "initialize" | "ping") || session.version().is_some();
    (!allowed).then(|| {
        WireError::invalid_request(format!(
            "`{method}` before `initialize`: this session is not initialized"
        ))
    })
}

async fn legacy(r: &Request<'_>, method: &str, params: Option<Value>) -> Result<Value, WireError> {
    if let Some(refused) = refused_before_initialize(r.session, method) {
        return Err(refused);
    }
    match method {
        "initialize" => lifecycle::initialize(r.aggregate, r.session, params.as_ref()).await,
        "ping" => Ok(json!({})),
        "logging/setLevel" => lifecycle::set_level(r.aggregate, r.session, params.as_ref()).await,
        "resources/subscribe" => surface::subscribe(r, params.as_ref(), true).await,
        "resources/unsubscribe" => surface::subscribe(r, params.as_ref(), false).await,
        _ => shared(r, method, params).await,
    }
}

async fn modern(r: &Request<'_>, method: &str, params: Option<Value>) -> Result<Value, WireError> {
    match method {
        "server/discover" => Ok(lifecycle::discover(r.aggregate).await),
        "subscriptions/listen" => {
            listen::subscribe(r.aggregate, r.id, params.as_ref(), r.sink).await
        }
        removed if REMOVED_IN_2026.contains(&removed) => Err(WireError::method_not_found(method)),
        _ => shared(r, method, params).await,
    }
}

async fn shared(r: &Request<'_>, method: &str, params: Option<Value>) -> Result<Value, WireError> {
    match method {
        "tools/call" => tools::call(r, params).await,
        "resources/list" => surface::list(r, List::Resources, params.as_ref()).await,
        "resources/templates/list" => {
            surface::list(r, List::ResourceTemplates, params.as_ref()).await
        }
        "prompts/list" => surface::list(r, List::Prompts, params.as_ref()).await,
        "resources/read" => surface::read(r, params.as_ref()).await,
        "prompts/get" => surface::get_prompt(r, params).await,
        "completion/complete" => surface::complete(r, params).await,
        _ => Err(WireError::method_not_found(method)),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cancelled {
    request_id: RequestId,
}

/// A notification from the client: a cancel fires its request's token; a change of its roots is
/// told to every running server (when it declared `roots.listChanged`, as the host path asks);
/// the rest is noted.
pub(crate) fn notification(
    aggregate: &Aggregate,
    session: &Session,
    method: &str,
    params: Option<Value>,
) {
    match method {
        "notifications/cancelled" => match params.map(serde_json::from_value::<Cancelled>) {
            Some(Ok(c)) if session.requests.cancel(&c.request_id) => {
                tracing::debug!(id = %c.request_id, "the client cancelled a request")
            }
            Some(Ok(c)) => {
                tracing::debug!(id = %c.request_id, "cancel for a request that is not in flight")
            }
            _ => tracing::debug!("ignored a malformed notifications/cancelled"),
        },
        "notifications/roots/list_changed" if session.announces_roots() => {
            // Off the reader, which never waits for a server.
            let registry = std::sync::Arc::clone(aggregate.registry());
            tokio::spawn(async move { registry.roots_changed().await });
        }
        "notifications/roots/list_changed" => tracing::debug!(
            "ignored notifications/roots/list_changed: the client did not declare roots.listChanged"
        ),
        "notifications/initialized" => tracing::debug!("the client is initialized"),
        _ => tracing::debug!(method, "ignored a notification from the client"),
    }
}
