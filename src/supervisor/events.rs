//! The registry's events on their way to its owner, coalesced so that a host that is not reading
//! cannot make them pile up. While fewer than `limits::EVENTS_QUEUED_BEFORE_COALESCING` wait,
//! every event is kept as is (a host that keeps up sees each one). Beyond that, a server's new
//! status takes the place of its last one still waiting (latest wins), and a tools change folds
//! into the last one waiting (the latest fingerprint, the net names added and removed). Whatever
//! the storm, what waits is bounded by that threshold plus one status per server, one tools
//! change and the barriers, and the owner always ends with the final state.
//!
//! Order: events are taken in the order they were queued, a coalesced one in the place of the
//! one it replaced, so a barrier (`Event::Barrier`) is acknowledged only after every event queued
//! before it, in its latest form, has been taken — what `Host::events_flushed` needs for "an
//! answer to servers/* comes after its notifications".

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{oneshot, Notify};

use super::status::ServerStatus;
use crate::limits;

/// What the registry tells its owner.
#[derive(Debug)]
pub enum Event {
    ServerChanged(Box<ServerStatus>),
    ToolsChanged {
        fingerprint: String,
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// Not from the registry: an owner sends it into its own event queue and is acknowledged once
    /// every event queued before it has been handled (used to order answers after notifications).
    Barrier(oneshot::Sender<()>),
}

/// A new event queue: its sending end (cheap to clone) and its one receiving end.
pub fn queue() -> (EventSender, EventReceiver) {
    let shared = Arc::new(Shared {
        pending: Mutex::new(Pending::default()),
        ready: Notify::new(),
        senders: AtomicUsize::new(1),
    });
    (
        EventSender {
            shared: Arc::clone(&shared),
        },
        EventReceiver { shared },
    )
}

pub struct EventSender {
    shared: Arc<Shared>,
}

pub struct EventReceiver {
    shared: Arc<Shared>,
}

struct Shared {
    pending: Mutex<Pending>,
    /// One permit per wake-up; the single receiver cannot miss one (`notify_one` keeps it).
    ready: Notify,
    senders: AtomicUsize,
}

#[derive(Default)]
struct Pending {
    order: VecDeque<Waiting>,
    /// The receiver is gone (or never was): events are dropped.
    discarding: bool,
}

/// One event waiting to be taken.
enum Waiting {
    Status(Box<ServerStatus>),
    Tools(ToolsDelta),
    Barrier(oneshot::Sender<()>),
}

struct ToolsDelta {
    fingerprint: String,
    added: BTreeSet<String>,
    removed: BTreeSet<String>,
}

impl ToolsDelta {
    /// Folds a later change into this one: the net change from before this one to after `next`.
    fn then(&mut self, fingerprint: String, added: Vec<String>, removed: Vec<String>) {
        self.fingerprint = fingerprint;
        for name in removed {
            if !self.added.remove(&name) {
                self.removed.insert(name);
            }
        }
        for name in added {
            if !self.removed.remove(&name) {
                self.added.insert(name);
            }
        }
    }
}

impl Pending {
    /// Queues `event`: as is while the queue is short (a reader keeping up sees every event),
    /// folded into the last waiting event of its kind (and server) once it is not.
    fn push(&mut self, event: Event) {
        let backed_up = self.order.len() >= limits::EVENTS_QUEUED_BEFORE_COALESCING;
        match event {
            Event::ServerChanged(status) => {
                if backed_up {
                    let same = self.order.iter_mut().rev().find_map(|w| match w {
                        Waiting::Status(s) if s.name == status.name => Some(s),
                        _ => None,
                    });
                    if let Some(waiting) = same {
                        *waiting = status;
                        return;
                    }
                }
                self.order.push_back(Waiting::Status(status));
            }
            Event::ToolsChanged {
                fingerprint,
                added,
                removed,
            } => {
                if backed_up {
                    let last = self.order.iter_mut().rev().find_map(|w| match w {
                        Waiting::Tools(t) => Some(t),
                        _ => None,
                    });
                    if let Some(waiting) = last {
                        waiting.then(fingerprint, added, removed);
                        return;
                    }
                }
                self.order.push_back(Waiting::Tools(ToolsDelta {
                    fingerprint,
                    added: added.into_iter().collect(),
                    removed: removed.into_iter().collect(),
                }));
            }
            Event::Barrier(ack) => self.order.push_back(Waiting::Barrier(ack)),
        }
    }
}

impl Shared {
    fn pending(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl EventSender {
    /// A sender whose events nobody receives (dropped at once, barriers released).
    pub fn discarding() -> Self {
        let (sender, receiver) = queue();
        drop(receiver);
        sender
    }

    /// Queues `event`, coalescing it with what waits once the queue is backed up (module doc).
    /// Never waits.
    pub fn send(&self, event: Event) {
        {
            let mut p = self.shared.pending();
            if p.discarding {
                return; // a barrier's sender is dropped with it: its waiter goes on
            }
            p.push(event);
        }
        self.shared.ready.notify_one();
    }
}

impl Clone for EventSender {
    fn clone(&self) -> Self {
        self.shared.senders.fetch_add(1, Ordering::AcqRel);
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for EventSender {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.shared.ready.notify_one();
        }
    }
}

impl EventReceiver {
    /// The next event, waiting for one; `None` once every sender is gone and nothing waits.
    pub async fn recv(&mut self) -> Option<Event> {
        loop {
            if let Some(event) = self.try_recv() {
                return Some(event);
            }
            if self.shared.senders.load(Ordering::Acquire) == 0 {
                return self.try_recv();
            }
            self.shared.ready.notified().await;
        }
    }

    /// The next event if one waits.
    pub fn try_recv(&mut self) -> Option<Event> {
        Some(match self.shared.pending().order.pop_front()? {
            Waiting::Barrier(ack) => Event::Barrier(ack),
            Waiting::Status(status) => Event::ServerChanged(status),
            Waiting::Tools(t) => Event::ToolsChanged {
                fingerprint: t.fingerprint,
                added: t.added.into_iter().collect(),
                removed: t.removed.into_iter().collect(),
            },
        })
    }
}

impl Drop for EventReceiver {
    fn drop(&mut self) {
        let mut p = self.shared.pending();
        p.discarding = true;
        p.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::status::ServerState;

    fn status(name: &str, generation: u64) -> Event {
        Event::ServerChanged(Box::new(ServerStatus {
            name: name.into(),
            source: crate::config::Source::Host,
            state: ServerState::Ready,
            generation,
            command: String::new(),
            transport: "stdio",
            url: None,
            headers: None,
            pid: None,
            protocol_version: None,
            server_info: None,
            instructions: None,
            tools_count: 0,
            started_at: None,
            last_exit: None,
            last_error: None,
            stderr_tail: String::new(),
            restarts: 0,
            next_restart_at: None,
            calls: 0,
            errors: 0,
            p50_latency_ms: None,
            authorization_url: None,
        }))
    }

    fn tools(fingerprint: &str, added: &[&str], removed: &[&str]) -> Event {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        Event::ToolsChanged {
            fingerprint: fingerprint.into(),
            added: names(added),
            removed: names(removed),
        }
    }

    #[test]
    fn a_storm_coalesces_to_the_latest_per_server_in_first_queued_order() {
        let (tx, mut rx) = queue();
        let kept = limits::EVENTS_QUEUED_BEFORE_COALESCING as u64;
        for generation in 0..kept {
            tx.send(status("early", generation));
        }
        for generation in 0..10_000 {
            tx.send(status("a", generation));
            tx.send(status("b", generation));
            tx.send(tools(&format!("f{generation}"), &[], &[]));
        }
        for generation in 0..kept {
            assert!(
                matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.generation == generation),
                "kept as is"
            );
        }
        let (ack, mut acked) = oneshot::channel();
        tx.send(Event::Barrier(ack));
        tx.send(status("a", 10_000));
        match rx.try_recv() {
            Some(Event::ServerChanged(s)) => {
                assert_eq!((s.name.as_str(), s.generation), ("a", 9_999))
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.name == "b" && s.generation == 9_999)
        );
        assert!(
            matches!(rx.try_recv(), Some(Event::ToolsChanged { fingerprint, .. }) if fingerprint == "f9999")
        );
        assert!(
            acked.try_recv().is_err(),
            "not acknowledged before it is taken"
        );
        match rx.try_recv() {
            Some(Event::Barrier(ack)) => ack.send(()).unwrap(),
            other => panic!("{other:?}"),
        }
        assert!(matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.generation == 10_000));
        assert!(rx.try_recv().is_none());
    }

    #[test]
    fn tools_changes_fold_into_their_net_change() {
        let (tx, mut rx) = queue();
        for i in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
            tx.send(tools(&format!("early{i}"), &[], &[]));
        }
        tx.send(tools("f1", &["x", "y"], &["old"]));
        tx.send(tools("f2", &["old", "z"], &["x"]));
        for _ in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING - 1 {
            assert!(matches!(rx.try_recv(), Some(Event::ToolsChanged { .. })));
        }
        match rx.try_recv() {
            Some(Event::ToolsChanged {
                fingerprint,
                added,
                removed,
            }) => {
                assert_eq!(fingerprint, "f2");
                assert_eq!(added, ["y", "z"]);
                assert!(removed.is_empty(), "{removed:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn recv_ends_once_every_sender_is_gone_and_a_discarding_sender_drops_all() {
        let (tx, mut rx) = queue();
        let tx2 = tx.clone();
        tx.send(status("a", 1));
        drop(tx);
        drop(tx2);
        assert!(rx.recv().await.is_some());
        assert!(rx.recv().await.is_none());
        let d = EventSender::discarding();
        let (ack, acked) = oneshot::channel();
        d.send(Event::Barrier(ack));
        assert!(acked.await.is_err(), "released, not held");
    }
}
