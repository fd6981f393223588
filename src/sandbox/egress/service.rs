//! One request to the proxy, routed: `CONNECT` tunnels, anything else is a plain request to forward.

use std::convert::Infallible;

use hyper::body::Incoming;
use hyper::{Method, Request, Response};

use super::answers::ProxyBody;
use super::connect::tunnel;
use super::forward::forward;
use super::shared::Connection;

pub(super) async fn route(
    connection: Connection,
    request: Request<Incoming>,
) -> Result<Response<ProxyBody>, Infallible> {
    Ok(if request.method() == Method::CONNECT {
        tunnel(connection, request).await
    } else {
        forward(connection, request).await
    })
}
