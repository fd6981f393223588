//! The proxy's own answers: a short plain-text body naming the cause (host, config key, limit),
//! and the body type every answer of the proxy has (its own or a forwarded one).

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::{header, Response, StatusCode};

pub(super) type ProxyBody = BoxBody<Bytes, hyper::Error>;

pub(super) fn empty(status: StatusCode) -> Response<ProxyBody> {
    text(status, String::new())
}

pub(super) fn text(status: StatusCode, message: String) -> Response<ProxyBody> {
    let body = if message.is_empty() {
        message
    } else {
        format!("{message}\n")
    };
    let mut response = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    if status != StatusCode::OK {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}
