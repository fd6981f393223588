//! A plain request in absolute form (`GET http://host:port/path`): checked like a tunnel, then sent
//! to the host in origin form on a connection of its own, without the hop-by-hop headers, and its
//! answer streamed back; the exchange ends once it is silent both ways for the idle bound. `Upgrade`
//! is not passed on (a WebSocket goes through `CONNECT`).

use http_body_util::BodyExt;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;

use crate::limits::EGRESS_RESPONSE_HEAD_MAX_BYTES;

use super::activity::{Activity, Watched};
use super::answers::{text, ProxyBody};
use super::gate::reach;
use super::shared::Connection;
use super::target::Target;

pub(super) async fn forward(
    connection: Connection,
    mut request: Request<Incoming>,
) -> Response<ProxyBody> {
    let shared = &connection.shared;
    let target = match Target::of_absolute(request.uri()) {
        Ok(target) => target,
        Err(why) => return text(StatusCode::BAD_REQUEST, why),
    };
    let upstream = match reach(shared, &target).await {
        Ok(stream) => stream,
        Err(answer) => return answer,
    };
    shared.allowed(&target);

    // The target, not the URL's authority: that may carry `user:password@`.
    let origin_form = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse::<Uri>()
        .unwrap_or_else(|_| Uri::from_static("/"));
    *request.uri_mut() = origin_form;
    strip_hop_by_hop(request.headers_mut());
    if let Ok(host) = HeaderValue::from_str(&host_header(&target)) {
        request.headers_mut().insert(header::HOST, host);
    }

    let activity = Arc::new(Activity::new());
    let handshake = hyper::client::conn::http1::Builder::new()
        .max_buf_size(EGRESS_RESPONSE_HEAD_MAX_BYTES)
        .handshake::<_, Incoming>(TokioIo::new(Watched::new(upstream, activity.clone())))
        .await;
    let (mut sender, link) = match handshake {
        Ok(pair) => pair,
        Err(e) => return failed(&connection, &target, format!("`{target}`: {e}")),
    };
    let stop = shared.stop.clone();
    let idle = shared.options.idle_timeout;
    // Dropping the link closes the host's connection, which ends the answer's body mid-way: the
    // client sees its connection closed.
    tokio::spawn(async move {
        tokio::select! {
            _ = link => {}
            () = activity.silent_for(idle) => {}
            () = stop.cancelled() => {}
        }
    });
    match tokio::time::timeout(idle, sender.send_request(request)).await {
        Ok(Ok(mut answer)) => {
            strip_hop_by_hop(answer.headers_mut());
            answer.map(|body| body.boxed())
        }
        Ok(Err(e)) => failed(
            &connection,
            &target,
            format!("`{target}` did not answer: {e}"),
        ),
        Err(_) => failed(
            &connection,
            &target,
            format!(
                "`{target}` did not answer within {} s (limit EGRESS_IDLE_TIMEOUT)",
                idle.as_secs_f64()
            ),
        ),
    }
}

/// `host` or `host:port` when the port is not 80, as a `Host` header has it.
fn host_header(target: &Target) -> String {
    if target.port == super::target::PLAIN_DEFAULT_PORT {
        target.host.to_string()
    } else {
        target.to_string()
    }
}

fn failed(connection: &Connection, target: &Target, why: String) -> Response<ProxyBody> {
    connection.shared.failed(target, &why);
    text(
        StatusCode::BAD_GATEWAY,
        format!(
            "egress proxy of server `{}`: {why}",
            connection.shared.server
        ),
    )
}

/// Headers that belong to one hop (RFC 9110 §7.6.1), and those `Connection` names.
fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in [
        header::CONNECTION,
        header::PROXY_AUTHORIZATION,
        header::PROXY_AUTHENTICATE,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
        header::UPGRADE,
    ] {
        headers.remove(name);
    }
    headers.remove("proxy-connection");
    headers.remove("keep-alive");
}
