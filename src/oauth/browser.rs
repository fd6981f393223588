//! The browser step: the one part of a login that only a person can do, asked of whoever owns the
//! session through the [`Asker`] seam (`crate::ask`): the host protocol's `auth/authorize` (the
//! host opens a browser and hands back where it was redirected, or says it only opened it, or
//! declines), or the `login` command (prints the URL). An owner that did not declare `auth` is
//! never asked; the loopback listener is then the only way back.

use reqwest::Url;
use serde_json::{json, Value};

use crate::ask::{Asker, Question};

/// The method asked.
pub(crate) const AUTHORIZE: &str = "auth/authorize";

/// How the browser step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum BrowserOutcome {
    /// The URL the browser was redirected to (carrying the code, `state` and `iss`).
    Redirected(Url),
    /// The URL was shown or opened; the redirect comes to the sidecar's loopback listener.
    Opened,
    /// The person or the owner declined, or could not answer, with the reason.
    Declined(String),
}

/// Whether `asker` declared it can show a person a login.
pub(super) fn can_ask(asker: &dyn Asker) -> bool {
    asker.capabilities().auth.is_some()
}

/// Asks `asker` to put `url` in front of a person for `server`'s login (`redirect_uri` says where
/// the authorization server sends the browser back).
pub(super) async fn ask(
    asker: &dyn Asker,
    server: &str,
    url: &Url,
    redirect_uri: &Url,
) -> BrowserOutcome {
    let question = Question {
        server: server.to_owned(),
        method: AUTHORIZE.to_owned(),
        params: json!({"url": url.as_str(), "redirectUri": redirect_uri.as_str()}),
        key: None,
    };
    match asker.ask(question).await {
        Ok(answer) => outcome(&answer),
        Err(e) => BrowserOutcome::Declined(e.to_string()),
    }
}

/// The owner's answer: `{action: "redirected", redirectUrl}`, `{action: "opened"}` or
/// `{action: "declined", reason?}`.
pub(super) fn outcome(answer: &Value) -> BrowserOutcome {
    let text = |k: &str| answer.get(k).and_then(Value::as_str);
    match text("action") {
        Some("redirected") => match text("redirectUrl").map(Url::parse) {
            Some(Ok(url)) => BrowserOutcome::Redirected(url),
            _ => BrowserOutcome::Declined(
                "the answer to auth/authorize has no valid redirectUrl".to_owned(),
            ),
        },
        Some("opened") => BrowserOutcome::Opened,
        Some("declined") => BrowserOutcome::Declined(
            text("reason")
                .map(|r| r.chars().take(200).collect())
                .unwrap_or_else(|| "declined".to_owned()),
        ),
        _ => BrowserOutcome::Declined(
            "the answer to auth/authorize has no action (redirected, opened or declined)"
                .to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(
            outcome(
                &json!({"action": "redirected", "redirectUrl": "http://127.0.0.1:5/cb?code=c"})
            ),
            BrowserOutcome::Redirected(
                Url::parse("http://127.0.0.1:5/cb?code=c").unwrap_or_else(|_| unreachable!())
            )
        );
        assert_eq!(
            outcome(&json!({"action": "opened"})),
            BrowserOutcome::Opened
        );
        assert_eq!(
            outcome(&json!({"action": "declined", "reason": "no browser"})),
            BrowserOutcome::Declined("no browser".into())
        );
        for bad in [
            json!({}),
            json!({"action": "redirected"}),
            json!({"action": "redirected", "redirectUrl": "not a url"}),
        ] {
            assert!(
                matches!(outcome(&bad), BrowserOutcome::Declined(_)),
                "{bad}"
            );
        }
    }
}
