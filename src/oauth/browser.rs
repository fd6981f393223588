//! The browser step: the one part of a login that only a person can do. Whoever can reach a
//! person implements [`BrowserStep`] — the host protocol (`auth/authorize`, the host opens a
//! browser and hands back where it was redirected), the `login` command (prints the URL and lets
//! the loopback listener catch the redirect) — and the login flow asks it.

use std::future::Future;
use std::pin::Pin;

use reqwest::Url;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the person is asked to do.
#[derive(Clone, Debug)]
pub struct BrowserRequest {
    /// The server that needs the login (its name in the sidecar).
    pub server: String,
    /// The authorization URL to open.
    pub url: Url,
    /// Where the authorization server sends the browser back.
    pub redirect_uri: Url,
}

/// How the browser step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrowserOutcome {
    /// The URL the browser was redirected to (carrying the code, `state` and `iss`).
    Redirected(Url),
    /// The URL was shown or opened; the redirect comes to the sidecar's loopback listener.
    Opened,
    /// The person or the host declined, with the reason when one was given.
    Declined(Option<String>),
}

/// Someone who can put an authorization URL in front of a person.
pub trait BrowserStep: Send + Sync {
    fn authorize<'a>(&'a self, request: &'a BrowserRequest) -> BoxFuture<'a, BrowserOutcome>;
}
