//! The loopback callback listener: where the browser lands after the person approved (RFC 8252
//! §7.3). It listens on 127.0.0.1 (a random port unless the redirect URI names one), answers only
//! `GET <redirect path>?…state=<the request's state>`, and only once: the first such request ends
//! it. Anything else — another path, a missing or wrong `state` — is answered 400/404 and changes
//! nothing, so a local process guessing at the port cannot end or hijack the login.

use std::convert::Infallible;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use reqwest::Url;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Semaphore};

use super::error::AuthError;
use crate::limits;

/// The default redirect path on the loopback listener.
const DEFAULT_PATH: &str = "/callback";

/// A bound listener and the redirect URI it answers.
pub(super) struct Callback {
    listener: TcpListener,
    redirect_uri: Url,
}

impl Callback {
    /// Binds the listener for `configured` (an `http` loopback redirect URI: its port and path), or
    /// `127.0.0.1` with `preferred` port (a registration's earlier one) when free, else a random
    /// port. `None` for a configured redirect URI that is not loopback `http`: the host's browser
    /// step is then the only way back.
    pub(super) async fn bind(
        configured: Option<&Url>,
        preferred: Option<&str>,
    ) -> Result<Option<Self>, AuthError> {
        let (port, path, host) = match configured {
            Some(url) if url.scheme() == "http" => (
                url.port().unwrap_or(80),
                url.path().to_owned(),
                url.host_str().unwrap_or("127.0.0.1").to_owned(),
            ),
            Some(_) => return Ok(None),
            None => {
                let port = preferred
                    .and_then(|u| Url::parse(u).ok())
                    .filter(|u| u.host_str() == Some("127.0.0.1") && u.path() == DEFAULT_PATH)
                    .and_then(|u| u.port());
                if let Some(port) = port {
                    if let Ok(found) = Self::listen(port, DEFAULT_PATH, "127.0.0.1").await {
                        return Ok(Some(found));
                    }
                }
                (0, DEFAULT_PATH.to_owned(), "127.0.0.1".to_owned())
            }
        };
        Self::listen(port, &path, &host)
            .await
            .map(Some)
            .map_err(|e| {
                AuthError::failed(format!(
                    "cannot listen for the login's redirect on 127.0.0.1:{port}: {e}"
                ))
            })
    }

    async fn listen(port: u16, path: &str, host: &str) -> std::io::Result<Self> {
        // A loopback address only: `[::1]` when the redirect URI names it, else 127.0.0.1 (where
        // `localhost` resolves first).
        let v6 = host == "[::1]";
        let ip: std::net::IpAddr = if v6 {
            Ipv6Addr::LOCALHOST.into()
        } else {
            Ipv4Addr::LOCALHOST.into()
        };
        let listener = TcpListener::bind(SocketAddr::from((ip, port))).await?;
        let port = listener.local_addr()?.port();
        let host = match host {
            "localhost" => "localhost",
            _ if v6 => "[::1]",
            _ => "127.0.0.1",
        };
        let redirect_uri =
            Url::parse(&format!("http://{host}:{port}{path}")).map_err(std::io::Error::other)?;
        Ok(Self {
            listener,
            redirect_uri,
        })
    }

    pub(super) fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// Serves the listener until the redirect carrying `state` arrives; returns the full URL the
    /// browser was sent to. Cancel-safe: dropping the future closes the listener.
    pub(super) async fn wait(self, state: &str) -> Url {
        let (tx, rx) = oneshot::channel::<Url>();
        let done = Arc::new(Mutex::new(Some(tx)));
        let expected = Arc::new(Expected {
            path: self.redirect_uri.path().to_owned(),
            state: state.to_owned(),
            base: self.redirect_uri.clone(),
        });
        let slots = Arc::new(Semaphore::new(limits::OAUTH_CALLBACK_MAX_CONNECTIONS));
        let mut rx = std::pin::pin!(rx);
        loop {
            tokio::select! {
                // The redirect arrived: stop accepting (one use). The connection that brought it
                // finishes its answer on its own task.
                Ok(url) = &mut rx => return url,
                accepted = self.listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
                        // Too many at once: this one is dropped unanswered.
                        continue;
                    };
                    let (expected, done) = (Arc::clone(&expected), Arc::clone(&done));
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            let answer = answer(&expected, &done, &req);
                            async move { Ok::<_, Infallible>(answer) }
                        });
                        let conn = hyper::server::conn::http1::Builder::new()
                            .max_buf_size(limits::OAUTH_CALLBACK_MAX_HEAD_BYTES)
                            .keep_alive(false)
                            .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                        // Bounded: a connection that never sends its request is dropped.
                        let _ = tokio::time::timeout(limits::OAUTH_CALLBACK_REQUEST_TIMEOUT, conn).await;
                        drop(permit);
                    });
                }
            }
        }
    }
}

struct Expected {
    path: String,
    state: String,
    base: Url,
}

/// The answer to one request; the matching redirect is handed over (once).
fn answer(
    expected: &Expected,
    done: &Mutex<Option<oneshot::Sender<Url>>>,
    req: &Request<Incoming>,
) -> Response<Full<Bytes>> {
    let page = |status: StatusCode, text: &'static str| {
        let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
        *r.status_mut() = status;
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        r
    };
    if req.method() != hyper::Method::GET || req.uri().path() != expected.path {
        return page(StatusCode::NOT_FOUND, "Not found.\n");
    }
    let mut url = expected.base.clone();
    url.set_query(req.uri().query());
    let state_matches = url
        .query_pairs()
        .any(|(k, v)| k == "state" && v == expected.state.as_str());
    if !state_matches {
        tracing::warn!(
            "the login's loopback listener got a redirect without the expected state; ignored"
        );
        return page(
            StatusCode::BAD_REQUEST,
            "This redirect does not belong to the login in progress.\n",
        );
    }
    let sender = done.lock().unwrap_or_else(|p| p.into_inner()).take();
    match sender {
        Some(tx) => {
            let _ = tx.send(url);
            page(
                StatusCode::OK,
                "mcp-sidecar received the authorization. You can close this window.\n",
            )
        }
        None => page(StatusCode::GONE, "This login is already complete.\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(url: &str) -> u16 {
        reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(url)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// Only the right path with the right state ends the wait, and only once.
    #[tokio::test]
    async fn one_use_with_the_right_state() {
        let cb = Callback::bind(None, None).await.unwrap().unwrap();
        let base = cb.redirect_uri().clone();
        assert_eq!(base.host_str(), Some("127.0.0.1"));
        assert_eq!(base.path(), "/callback");
        let waiting = tokio::spawn(async move { cb.wait("s-123").await });
        let port = base.port().unwrap();
        assert_eq!(
            get(&format!("http://127.0.0.1:{port}/other?state=s-123")).await,
            404
        );
        assert_eq!(get(&format!("{base}?code=c&state=wrong")).await, 400);
        assert_eq!(get(&format!("{base}?code=c")).await, 400);
        assert!(!waiting.is_finished());
        assert_eq!(get(&format!("{base}?code=the-code&state=s-123")).await, 200);
        let url = waiting.await.unwrap();
        assert!(url
            .query_pairs()
            .any(|(k, v)| k == "code" && v == "the-code"));
        // The listener is gone: the port no longer answers.
        assert!(reqwest::Client::builder()
            .no_proxy()
            .build()
            .unwrap()
            .get(format!("{base}?code=x&state=s-123"))
            .send()
            .await
            .is_err());
    }

    #[tokio::test]
    async fn configured_redirects() {
        let https = Url::parse("https://app.example/cb").unwrap();
        assert!(Callback::bind(Some(&https), None).await.unwrap().is_none());
        let taken = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = taken.local_addr().unwrap().port();
        let preferred = format!("http://127.0.0.1:{port}/callback");
        let cb = Callback::bind(None, Some(&preferred))
            .await
            .unwrap()
            .unwrap();
        assert_ne!(
            cb.redirect_uri().port(),
            Some(port),
            "a taken port falls back to a random one"
        );
        drop(taken);
        let configured = Url::parse(&format!("http://localhost:{port}/my/cb")).unwrap();
        let cb = Callback::bind(Some(&configured), None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            cb.redirect_uri().as_str(),
            format!("http://localhost:{port}/my/cb")
        );
    }
}
