//! A call's progress passed on to the client that asked for it. A `tools/call` whose `_meta`
//! carries a `progressToken` (both eras spell it the same) has its server's progress watched (the
//! registry's latest-wins watch, as for a host), and each change reaches the client as
//! `notifications/progress` with the client's own token, on the call's stream: stdout, or the
//! call's SSE response over HTTP. A client that reads slowly sees the newest progress, never a
//! backlog. A 2026-07-28 call parked for its client's answers keeps its watch; each leg forwards
//! with the token that leg carries (the revision asks for a fresh one per leg).

use serde_json::{Map, Value};
use tokio::sync::watch;

use crate::jsonrpc::encode_notification;
use crate::supervisor::Progress;

/// The `_meta.progressToken` of a request's params: a string or an integer, else none.
pub(crate) fn token_of(params: Option<&Value>) -> Option<Value> {
    let token = params?.get("_meta")?.get("progressToken")?;
    (token.is_string() || token.is_i64() || token.is_u64()).then(|| token.clone())
}

/// The next progress of a call (the latest, when several came meanwhile); `None` once the call
/// is over and its last progress was taken, or when nobody watches.
pub(crate) async fn next(
    watched: Option<&mut watch::Receiver<Progress>>,
) -> Option<Map<String, Value>> {
    let watched = watched?;
    loop {
        // An error only once the call is over (its sender dropped) and its last value was seen.
        watched.changed().await.ok()?;
        if let Some(Value::Object(params)) = watched.borrow_and_update().clone() {
            return Some(params);
        }
    }
}

/// `notifications/progress` of `params` (`{progress, total?, message?}`, masked by the registry)
/// under the client's `token`.
pub(crate) fn notification(mut params: Map<String, Value>, token: &Value) -> Vec<u8> {
    params.insert("progressToken".into(), token.clone());
    encode_notification("notifications/progress", Some(&params))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_token_is_a_string_or_an_integer() {
        let with = |t: Value| json!({"name": "x", "_meta": {"progressToken": t}});
        assert_eq!(token_of(Some(&with(json!("abc")))), Some(json!("abc")));
        assert_eq!(token_of(Some(&with(json!(7)))), Some(json!(7)));
        assert_eq!(token_of(Some(&with(json!(1.5)))), None);
        assert_eq!(token_of(Some(&with(json!({"a": 1})))), None);
        assert_eq!(token_of(Some(&json!({"name": "x"}))), None);
        assert_eq!(token_of(None), None);
    }

    /// Many updates made while nobody took them are one notification, the latest; the last one
    /// is still taken after the call ended, and then the watch is over.
    #[tokio::test]
    async fn the_latest_progress_wins_and_the_last_survives_the_calls_end() {
        let (sink, mut watched) = watch::channel(None);
        for step in 1..=100 {
            sink.send_replace(Some(json!({"progress": step, "total": 100})));
        }
        let first = next(Some(&mut watched)).await.unwrap();
        assert_eq!(Value::Object(first), json!({"progress": 100, "total": 100}));
        sink.send_replace(Some(json!({"progress": 101})));
        drop(sink);
        let last = next(Some(&mut watched)).await.unwrap();
        let line = String::from_utf8(notification(last, &json!("tok"))).unwrap();
        let sent: Value = serde_json::from_str(line.trim()).unwrap();
        assert_eq!(
            sent,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progress": 101, "progressToken": "tok"}})
        );
        assert!(next(Some(&mut watched)).await.is_none());
        assert!(next(None).await.is_none());
    }
}
