//! Routing: a request's method to its handler (`servers` for `servers/*`, `tools` for `tools/*` and
//! `results/read`, `surface` for `resources/*`, `prompts/*`, `completion/complete` and
//! `logging/setLevel`), once the session is initialized. `initialize` and `shutdown` never come here:
//! the reader handles them in order (`session`).

use serde_json::{json, Value};

use super::context::Host;
use super::params::{self, parse};
use super::reply::Reply;
use super::{servers, surface, tools};
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::{Params, RequestId};
use crate::metrics::{self, Outcome};

/// Set (debug builds only) to make `test/panic` panic inside its handler.
#[cfg(debug_assertions)]
const TEST_PANIC_ENV: &str = "MCP_SIDECAR_TEST_PANIC";

/// The outcome of one request, where the answer may be JSON text the sidecar holds already
/// (`tools/list`, `tools/search`) or a call's answer; every other method's value comes from
/// [`run`].
pub(super) async fn reply(
    host: &Host,
    id: &RequestId,
    method: &str,
    params: Option<Params>,
) -> Result<Reply> {
    let reply = match method {
        "tools/list" => tools::list(host.registry()?, parse(method, params)?).map(Reply::Json),
        "tools/search" => {
            super::search::search(host.registry()?, parse(method, params)?).map(Reply::Json)
        }
        "tools/call" => {
            let to = (&host.outbox, id);
            let answer = tools::call(host.registry()?, parse(method, params)?, to).await;
            answer.map(|a| Reply::Call(Box::new(a)))
        }
        _ => run(host, method, params).await.map(Reply::Value),
    };
    let outcome = match &reply {
        Ok(Reply::Call(answer)) if answer.is_error() => Outcome::ToolError,
        Ok(_) => Outcome::Ok,
        Err(_) => Outcome::Error,
    };
    metrics::global().request(method, outcome);
    reply
}

/// The outcome of one request: its result or its error.
///
/// Every request's task holds this future, so its size is paid per call: the `servers/*`
/// handlers (large, rare) are boxed, and the future is about as large as `tools/call`'s.
pub(super) async fn run(host: &Host, method: &str, params: Option<Params>) -> Result<Value> {
    let registry = host.registry()?;
    match method {
        "ping" => {
            parse::<params::Empty>(method, params)?;
            Ok(json!({}))
        }
        "servers/add" => Box::pin(servers::add(registry, parse(method, params)?)).await,
        "servers/test" => Box::pin(servers::test(registry, parse(method, params)?)).await,
        "servers/load" => Box::pin(super::load::run(registry, parse(method, params)?)).await,
        "servers/remove" => Box::pin(servers::remove(registry, parse(method, params)?)).await,
        "servers/restart" => Box::pin(servers::restart(registry, parse(method, params)?)).await,
        "servers/login" => Box::pin(servers::login(registry, parse(method, params)?)).await,
        "servers/logout" => Box::pin(servers::logout(registry, parse(method, params)?)).await,
        "servers/list" => {
            parse::<params::Empty>(method, params)?;
            Ok(servers::list(registry))
        }
        "servers/stats" => servers::stats(registry, parse(method, params)?),
        "tools/accept" => tools::accept(registry, parse(method, params)?),
        "results/read" => tools::read_result(registry, parse(method, params)?),
        "resources/list" => {
            let list = surface::List::Resources;
            Box::pin(surface::list(registry, list, parse(method, params)?)).await
        }
        "resources/templates/list" => {
            let list = surface::List::ResourceTemplates;
            Box::pin(surface::list(registry, list, parse(method, params)?)).await
        }
        "prompts/list" => {
            let list = surface::List::Prompts;
            Box::pin(surface::list(registry, list, parse(method, params)?)).await
        }
        "resources/read" => Box::pin(surface::read(registry, parse(method, params)?)).await,
        "resources/subscribe" => {
            Box::pin(surface::subscribe(registry, parse(method, params)?, true)).await
        }
        "resources/unsubscribe" => {
            Box::pin(surface::subscribe(registry, parse(method, params)?, false)).await
        }
        "prompts/get" => Box::pin(surface::get_prompt(registry, parse(method, params)?)).await,
        "completion/complete" => {
            Box::pin(surface::complete(registry, parse(method, params)?)).await
        }
        "logging/setLevel" => {
            Box::pin(surface::set_log_level(registry, parse(method, params)?)).await
        }
        // A fault on purpose, to prove that a panicking handler still answers (INTERNAL) and the
        // sidecar goes on: only in debug builds, and only when the environment asks for it.
        #[cfg(debug_assertions)]
        "test/panic" if std::env::var_os(TEST_PANIC_ENV).is_some() => {
            tokio::task::yield_now().await;
            panic!("`test/panic` was called ({TEST_PANIC_ENV} is set)")
        }
        _ => Err(Error::new(
            ErrorCode::MethodNotFound,
            format!("unknown method `{method}`"),
        )
        .with("method", method)),
    }
}
