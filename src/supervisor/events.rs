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
use crate::names::{ServerName, ToolName};

/// What the registry tells its owner.
#[derive(Debug)]
pub(crate) enum Event {
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
pub(crate) struct ToolsChange {
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
pub(crate) struct Withheld {
    pub server: ServerName,
    pub tool: ToolName,
    pub hash: String,
}

/// One log message of a server (secret values masked, `data` bounded).
#[derive(Debug)]
pub(crate) struct ServerLog {
    pub server: String,
    pub level: LogLevel,
    pub logger: Option<String>,
    pub data: Value,
}

/// A new event queue: its sending end (cheap to clone) and its one receiving end.
pub(crate) fn queue() -> (EventSender, EventReceiver) {
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

pub(crate) struct EventSender {
    shared: Arc<Shared>,
}

pub(crate) struct EventReceiver {
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
    pub(crate) fn discarding() -> Self {
        let (sender, receiver) = queue();
        drop(receiver);
        sender
    }

    /// Queues `event`, coalescing it with what waits once the queue is backed up (module doc).
    /// Never waits.
    pub(crate) fn send(&self, event: Event) {
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
    pub(crate) async fn recv(&mut self) -> Option<Event> {
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
    pub(crate) fn try_recv(&mut self) -> Option<Event> {
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
mod tests;
