//! The resources a 2026-07-28 session watches (that era's `resources/subscribe`), and the
//! `subscriptions/listen` stream that watches them (`listen` opens and replaces it): which
//! subscription changes the set, and which stream a change replaces; and the
//! `notifications/subscriptions/acknowledged` a new stream is waited for with (the reader routes
//! it here by its `subscriptionId`, the listen request's id).

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::era::META_SUBSCRIPTION_ID;

/// The resources watched on a modern session, and the listen stream that watches them.
#[derive(Default)]
pub(super) struct WatchedResources {
    uris: BTreeSet<String>,
    listen: Option<i64>,
}

/// A change of the set: the stream it replaces, and the set the new stream (if any) asks for.
pub(super) struct Change {
    pub replaced: Option<i64>,
    pub uris: BTreeSet<String>,
}

impl WatchedResources {
    /// Adds (`on`) or removes `uri`; `None` when that changes nothing.
    pub(super) fn change(&mut self, uri: &str, on: bool) -> Option<Change> {
        let changed = if on {
            self.uris.insert(uri.to_owned())
        } else {
            self.uris.remove(uri)
        };
        changed.then(|| Change {
            replaced: self.listen.take(),
            uris: self.uris.clone(),
        })
    }

    /// Takes `uri` out of the set whose subscription failed, leaving the stream as it is (the
    /// next change opens one without it).
    pub(super) fn failed(&mut self, uri: &str) {
        self.uris.remove(uri);
    }

    /// The stream now watching the set.
    pub(super) fn listening(&mut self, id: i64) {
        self.listen = Some(id);
    }
}

/// Listen streams waiting for their acknowledgement, by request id (one entry per waiting
/// subscribe, removed when acknowledged or given up).
#[derive(Default)]
pub(super) struct ListenAcks {
    waiting: Mutex<HashMap<i64, oneshot::Sender<Value>>>,
}

impl ListenAcks {
    /// Waits for the acknowledgement of listen request `id`: its `notifications` filter.
    pub(super) fn expect(&self, id: i64) -> oneshot::Receiver<Value> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        rx
    }

    pub(super) fn forget(&self, id: i64) {
        self.lock().remove(&id);
    }

    /// Delivers an acknowledgement's `params`; false when no one waits for it.
    pub(super) fn route(&self, params: Option<&Value>) -> bool {
        let Some(id) = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(META_SUBSCRIPTION_ID))
            .and_then(Value::as_i64)
        else {
            return false;
        };
        let Some(tx) = self.lock().remove(&id) else {
            return false;
        };
        let filter = params
            .and_then(|p| p.get("notifications"))
            .cloned()
            .unwrap_or(Value::Null);
        tx.send(filter).is_ok()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, oneshot::Sender<Value>>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_replaces_the_stream_and_a_repeat_changes_nothing() {
        let mut w = WatchedResources::default();
        let first = w.change("a://1", true).unwrap();
        assert_eq!((first.replaced, first.uris.len()), (None, 1));
        w.listening(7);
        assert!(w.change("a://1", true).is_none(), "already watched");
        let second = w.change("a://2", true).unwrap();
        assert_eq!(second.replaced, Some(7));
        assert_eq!(second.uris.len(), 2);
        w.listening(8);
        assert!(w.change("a://3", false).is_none(), "never watched");
        let emptied = w.change("a://1", false).unwrap();
        assert_eq!(emptied.replaced, Some(8));
        assert_eq!(emptied.uris.into_iter().collect::<Vec<_>>(), ["a://2"]);
    }

    #[test]
    fn an_acknowledgement_reaches_the_stream_it_names() {
        let acks = ListenAcks::default();
        let mut rx = acks.expect(5);
        let other = serde_json::json!({"notifications": {}, "_meta": {META_SUBSCRIPTION_ID: 6}});
        assert!(!acks.route(Some(&other)));
        let ours = serde_json::json!({"notifications": {"resourceSubscriptions": ["a://1"]}, "_meta": {META_SUBSCRIPTION_ID: 5}});
        assert!(acks.route(Some(&ours)));
        assert_eq!(rx.try_recv().unwrap()["resourceSubscriptions"][0], "a://1");
        assert!(!acks.route(Some(&ours)), "delivered once");
    }
}
