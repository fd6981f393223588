//! `CONNECT host:port`: the way HTTPS (and any TCP) goes through a proxy. The target is checked and
//! connected to first, so a refusal or a failure is a proper answer; then `200` and the client's
//! connection, handed over by hyper, is spliced to the target until either side ends.

use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use super::answers::{empty, text, ProxyBody};
use super::gate::reach;
use super::shared::Connection;
use super::target::Target;
use super::tunnel::splice;

pub(super) async fn tunnel(
    connection: Connection,
    request: Request<Incoming>,
) -> Response<ProxyBody> {
    let shared = &connection.shared;
    let target = match Target::of_connect(request.uri()) {
        Ok(target) => target,
        Err(why) => return text(StatusCode::BAD_REQUEST, why),
    };
    let upstream = match reach(shared, &target).await {
        Ok(stream) => stream,
        Err(answer) => return answer,
    };
    shared.allowed(&target);
    let idle = shared.options.idle_timeout;
    let stop = shared.stop.clone();
    let server = shared.server.clone();
    tokio::spawn(async move {
        match hyper::upgrade::on(request).await {
            Ok(client) => splice(TokioIo::new(client), upstream, idle, stop).await,
            Err(e) => {
                tracing::debug!(%server, host = %target, "egress tunnel not handed over: {e}")
            }
        }
        // The slot under `max_connections` is given back when the tunnel ends, not before.
        drop(connection);
    });
    empty(StatusCode::OK)
}
