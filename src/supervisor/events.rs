//! The registry's events on their way to its owner, coalesced so that a host that is not reading
//! cannot make them pile up. While fewer than `limits::EVENTS_QUEUED_BEFORE_COALESCING` wait,
//! every event is kept as is (a host that keeps up sees each one). Beyond that, a server's new
//! status takes the place of its last one still waiting (latest wins), and a tools change folds
//! into the last one waiting (the latest fingerprint, the net names added and removed, the union of
//! the changed ones). A server's resources or prompts change is dropped while one of the same
//! server waits; its resource updates are kept per URI up to
//! `limits::RESOURCE_UPDATES_WAITING_PER_SERVER`, then fold into one without a URI ("any of them
//! may have changed"); its log messages are dropped and counted in one marker per server (sent as
//! a warning naming the count). Whatever the storm, what waits is bounded by that threshold plus,
//! per server, one status, one change of each list, the resource updates and one log marker, and
//! one tools change and the barriers; the owner always ends with the final state.
//!
//! Order: events are taken in the order they were queued, a coalesced one in the place of the
//! one it replaced, so a barrier (`Event::Barrier`) is acknowledged only after every event queued
//! before it, in its latest form, has been taken — what `Host::events_flushed` needs for "an
//! answer to servers/* comes after its notifications".

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{oneshot, Notify};

use serde_json::Value;

use super::status::ServerStatus;
use crate::limits;
use crate::mcp::LogLevel;

/// What the registry tells its owner.
#[derive(Debug)]
pub enum Event {
    ServerChanged(Box<ServerStatus>),
    ToolsChanged(Box<ToolsChange>),
    /// A server announced `notifications/resources/list_changed`.
    ResourcesChanged {
        server: String,
    },
    /// A resource the host subscribed to changed; `uri: None` when updates were coalesced (any
    /// subscribed resource of the server may have).
    ResourceUpdated {
        server: String,
        uri: Option<String>,
    },
    /// A server announced `notifications/prompts/list_changed`.
    PromptsChanged {
        server: String,
    },
    /// A server's log message at or above the level the host asked for.
    ServerLog(Box<ServerLog>),
    /// `count` log messages of `server` were dropped while the host was not reading.
    LogsDropped {
        server: String,
        count: u64,
    },
    /// Not from the registry: an owner sends it into its own event queue and is acknowledged once
    /// every event queued before it has been handled (used to order answers after notifications).
    Barrier(oneshot::Sender<()>),
}

/// A change of the exposed tool set.
#[derive(Debug, Default)]
pub struct ToolsChange {
    pub fingerprint: String,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// Exposed names whose definition (hash) changed.
    pub changed: Vec<String>,
    /// Tools newly held out of the set by `pinTools`.
    pub withheld: Vec<Withheld>,
}

/// A tool held by `pinTools` until the host accepts `hash`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Withheld {
    pub server: String,
    pub tool: String,
    pub hash: String,
}

/// One log message of a server (secret values masked, `data` bounded).
#[derive(Debug)]
pub struct ServerLog {
    pub server: String,
    pub level: LogLevel,
    pub logger: Option<String>,
    pub data: Value,
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
    /// Resources or prompts changes, resource updates, log messages and their drop markers.
    Server(Event),
    Barrier(oneshot::Sender<()>),
}

struct ToolsDelta {
    fingerprint: String,
    added: BTreeSet<String>,
    removed: BTreeSet<String>,
    changed: BTreeSet<String>,
    withheld: Vec<Withheld>,
}

impl ToolsDelta {
    fn new(change: ToolsChange) -> Self {
        Self {
            fingerprint: change.fingerprint,
            added: change.added.into_iter().collect(),
            removed: change.removed.into_iter().collect(),
            changed: change.changed.into_iter().collect(),
            withheld: change.withheld,
        }
    }

    /// Folds a later change into this one: the net change from before this one to after `next`.
    fn then(&mut self, next: ToolsChange) {
        self.fingerprint = next.fingerprint;
        for name in next.removed {
            self.changed.remove(&name);
            if !self.added.remove(&name) {
                self.removed.insert(name);
            }
        }
        for name in next.added {
            if !self.removed.remove(&name) {
                self.added.insert(name);
            }
        }
        self.changed.extend(next.changed);
        for w in next.withheld {
            self.withheld
                .retain(|old| (&old.server, &old.tool) != (&w.server, &w.tool));
            self.withheld.push(w);
        }
    }

    fn into_change(self) -> ToolsChange {
        ToolsChange {
            fingerprint: self.fingerprint,
            added: self.added.into_iter().collect(),
            removed: self.removed.into_iter().collect(),
            changed: self.changed.into_iter().collect(),
            withheld: self.withheld,
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
            Event::ToolsChanged(change) => {
                if backed_up {
                    let last = self.order.iter_mut().rev().find_map(|w| match w {
                        Waiting::Tools(t) => Some(t),
                        _ => None,
                    });
                    if let Some(waiting) = last {
                        waiting.then(*change);
                        return;
                    }
                }
                self.order
                    .push_back(Waiting::Tools(ToolsDelta::new(*change)));
            }
            Event::Barrier(ack) => self.order.push_back(Waiting::Barrier(ack)),
            event if backed_up => self.coalesce(event),
            event => self.order.push_back(Waiting::Server(event)),
        }
    }

    /// A server's list change, resource update or log message while the queue is backed up.
    fn coalesce(&mut self, event: Event) {
        let waiting = |this: &mut Self| -> Vec<usize> {
            this.order
                .iter()
                .enumerate()
                .filter(|(_, w)| matches!(w, Waiting::Server(e) if same_kind(e, &event)))
                .map(|(i, _)| i)
                .collect()
        };
        let same = waiting(self);
        match &event {
            Event::ResourcesChanged { .. } | Event::PromptsChanged { .. } if !same.is_empty() => {}
            Event::ResourceUpdated { uri, .. } => {
                let covered = same.iter().any(|&i| {
                    matches!(&self.order[i], Waiting::Server(Event::ResourceUpdated { uri: u, .. }) if u.is_none() || u == uri)
                });
                if covered {
                    return;
                }
                match same.last() {
                    Some(&last) if same.len() >= limits::RESOURCE_UPDATES_WAITING_PER_SERVER => {
                        if let Waiting::Server(Event::ResourceUpdated { uri, .. }) =
                            &mut self.order[last]
                        {
                            *uri = None;
                        }
                    }
                    _ => self.order.push_back(Waiting::Server(event)),
                }
            }
            Event::ServerLog(log) => {
                let server = log.server.clone();
                let marker = self.order.iter_mut().find_map(|w| match w {
                    Waiting::Server(Event::LogsDropped { server: s, count }) if *s == server => {
                        Some(count)
                    }
                    _ => None,
                });
                match marker {
                    Some(count) => *count += 1,
                    None => self
                        .order
                        .push_back(Waiting::Server(Event::LogsDropped { server, count: 1 })),
                }
            }
            _ => self.order.push_back(Waiting::Server(event)),
        }
    }
}

/// Whether two events are of one kind about one server (for coalescing).
fn same_kind(a: &Event, b: &Event) -> bool {
    match (a, b) {
        (Event::ResourcesChanged { server: x }, Event::ResourcesChanged { server: y })
        | (Event::PromptsChanged { server: x }, Event::PromptsChanged { server: y })
        | (Event::ResourceUpdated { server: x, .. }, Event::ResourceUpdated { server: y, .. }) => {
            x == y
        }
        _ => false,
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
            Waiting::Tools(t) => Event::ToolsChanged(Box::new(t.into_change())),
            Waiting::Server(event) => event,
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
            capabilities: None,
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
        }))
    }

    fn tools(fingerprint: &str, added: &[&str], removed: &[&str]) -> Event {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
        Event::ToolsChanged(Box::new(ToolsChange {
            fingerprint: fingerprint.into(),
            added: names(added),
            removed: names(removed),
            ..ToolsChange::default()
        }))
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
        assert!(matches!(rx.try_recv(), Some(Event::ToolsChanged(c)) if c.fingerprint == "f9999"));
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
            assert!(matches!(rx.try_recv(), Some(Event::ToolsChanged(_))));
        }
        match rx.try_recv() {
            Some(Event::ToolsChanged(c)) => {
                assert_eq!(c.fingerprint, "f2");
                assert_eq!(c.added, ["y", "z"]);
                assert!(c.removed.is_empty(), "{:?}", c.removed);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn changed_names_and_withheld_tools_fold_too() {
        let held = |hash: &str| Withheld {
            server: "s".into(),
            tool: "t".into(),
            hash: hash.into(),
        };
        let mut delta = ToolsDelta::new(ToolsChange {
            fingerprint: "f1".into(),
            changed: vec!["a".into(), "gone".into()],
            withheld: vec![held("h1")],
            ..ToolsChange::default()
        });
        delta.then(ToolsChange {
            fingerprint: "f2".into(),
            removed: vec!["gone".into()],
            changed: vec!["b".into()],
            withheld: vec![held("h2")],
            ..ToolsChange::default()
        });
        let c = delta.into_change();
        assert_eq!(c.fingerprint, "f2");
        assert_eq!(c.changed, ["a", "b"], "a removed name is no longer changed");
        assert_eq!(c.removed, ["gone"]);
        assert_eq!(
            c.withheld,
            vec![held("h2")],
            "the latest hash of a held tool"
        );
    }

    #[test]
    fn a_backed_up_queue_folds_list_changes_updates_and_logs_per_server() {
        let (tx, mut rx) = queue();
        for i in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
            tx.send(status("early", i as u64));
        }
        for _ in 0..1000 {
            tx.send(Event::ResourcesChanged { server: "a".into() });
            tx.send(Event::PromptsChanged { server: "a".into() });
            tx.send(Event::ResourceUpdated {
                server: "a".into(),
                uri: Some("x://same".into()),
            });
        }
        for i in 0..1000 {
            tx.send(Event::ResourceUpdated {
                server: "b".into(),
                uri: Some(format!("x://{i}")),
            });
            tx.send(Event::ServerLog(Box::new(ServerLog {
                server: "a".into(),
                level: LogLevel::Info,
                logger: None,
                data: Value::from(i),
            })));
        }
        for _ in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
            assert!(matches!(rx.try_recv(), Some(Event::ServerChanged(_))));
        }
        let mut rest = Vec::new();
        while let Some(e) = rx.try_recv() {
            rest.push(e);
        }
        let updates_b: Vec<Option<String>> = rest
            .iter()
            .filter_map(|e| match e {
                Event::ResourceUpdated { server, uri } if server == "b" => Some(uri.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(updates_b.len(), limits::RESOURCE_UPDATES_WAITING_PER_SERVER);
        assert_eq!(
            updates_b.last(),
            Some(&None),
            "the last one stands for the rest"
        );
        let count = |pred: &dyn Fn(&Event) -> bool| rest.iter().filter(|e| pred(e)).count();
        assert_eq!(count(&|e| matches!(e, Event::ResourcesChanged { .. })), 1);
        assert_eq!(count(&|e| matches!(e, Event::PromptsChanged { .. })), 1);
        assert_eq!(
            count(&|e| matches!(e, Event::ResourceUpdated { server, .. } if server == "a")),
            1
        );
        assert_eq!(count(&|e| matches!(e, Event::ServerLog(_))), 0);
        assert!(rest
            .iter()
            .any(|e| matches!(e, Event::LogsDropped { server, count: 1000 } if server == "a")));
        assert!(rest.len() < 30, "{}", rest.len());
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
