//! Legacy HTTP sessions (2025-03-26 … 2025-11-25): each `initialize` without a session gets one,
//! named by a random `Mcp-Session-Id` that every later request carries; `DELETE` ends it and its id
//! is then unknown (404). With bearer tokens, a session belongs to the client that opened it (any of
//! its tokens, a rotated one too): to any other client its id is unknown too (404), so a session id
//! alone lets no one else act in it. At
//! most [`limits::AGGREGATE_HTTP_MAX_SESSIONS`] live at once: a new one
//! ends the least recently used session that is idle (no request in flight, no open stream).
//! A replica given a name (`--replica NAME`) puts it in front of every id it makes (`NAME.` then
//! the random part), so a load balancer that cannot learn ids from responses (nginx) still routes
//! a session to its replica by the id alone.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use crate::aggregate::session::ids::random_id;
use crate::aggregate::session::legacy::Session;
use crate::limits;

pub(super) struct HttpSession {
    pub id: String,
    /// The client that opened it (its name); `None` without tokens.
    pub owner: Option<Arc<str>>,
    pub session: Arc<Session>,
    /// Cancelled when the session ends (`DELETE`, eviction, stop): its stream ends with it.
    pub ended: CancellationToken,
    /// Whether its GET stream is open (one at a time).
    streaming: Mutex<bool>,
    last_used: AtomicU64,
}

impl HttpSession {
    /// Claims the session's GET stream; `false` when one is open already.
    pub(super) fn open_stream(&self) -> bool {
        let mut open = self.streaming.lock().unwrap_or_else(|p| p.into_inner());
        !std::mem::replace(&mut *open, true)
    }

    pub(super) fn close_stream(&self) {
        *self.streaming.lock().unwrap_or_else(|p| p.into_inner()) = false;
    }

    fn idle(&self) -> bool {
        self.session.requests.is_empty()
            && !*self.streaming.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the session: its stream stops and its requests are cancelled; returns once they ended.
    pub(super) async fn end(&self) {
        self.ended.cancel();
        self.session.asked.close("the session ended");
        self.session.requests.stop_all().await;
    }
}

#[derive(Default)]
pub(super) struct Sessions {
    table: Mutex<HashMap<String, Arc<HttpSession>>>,
    clock: AtomicU64,
    /// `NAME.` of `--replica NAME`, or empty.
    id_prefix: String,
}

impl Sessions {
    /// The sessions of a replica named `replica` (checked by [`crate::aggregate::replica_name`]).
    pub(super) fn of_replica(replica: Option<&str>) -> Self {
        Self {
            id_prefix: replica.map(|name| format!("{name}.")).unwrap_or_default(),
            ..Self::default()
        }
    }

    /// A new session, or `None` when the table is full of sessions in use. An idle session evicted
    /// to make room is ended in the background.
    pub(super) fn create(&self, owner: Option<Arc<str>>) -> Option<Arc<HttpSession>> {
        let mut table = self.table();
        if table.len() >= limits::AGGREGATE_HTTP_MAX_SESSIONS {
            let oldest = table
                .values()
                .filter(|s| s.idle())
                .min_by_key(|s| s.last_used.load(Ordering::Relaxed))
                .map(|s| s.id.clone())?;
            if let Some(evicted) = table.remove(&oldest) {
                tracing::info!(session = %evicted.id, "ended the least recently used HTTP session to make room");
                tokio::spawn(async move { evicted.end().await });
            }
        }
        let session = Arc::new(HttpSession {
            id: format!("{}{}", self.id_prefix, random_id()),
            owner,
            session: Arc::default(),
            ended: CancellationToken::new(),
            streaming: Mutex::new(false),
            last_used: AtomicU64::new(self.tick()),
        });
        table.insert(session.id.clone(), Arc::clone(&session));
        Some(session)
    }

    /// Sessions open now.
    pub(super) fn count(&self) -> usize {
        self.table().len()
    }

    /// The live session `id` (marked as just used).
    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let session = self.table().get(id).cloned()?;
        session.last_used.store(self.tick(), Ordering::Relaxed);
        Some(session)
    }

    /// Forgets session `id` (the caller ends it).
    pub(super) fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        self.table().remove(id)
    }

    /// Forgets every session (the caller ends them).
    pub(super) fn drain(&self) -> Vec<Arc<HttpSession>> {
        self.table().drain().map(|(_, s)| s).collect()
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    fn table(&self) -> MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_replica_puts_its_name_in_front_of_every_session_id() {
        let sessions = Sessions::of_replica(Some("gateway-7d9f-x2"));
        let session = sessions.create(None).unwrap();
        let random = session.id.strip_prefix("gateway-7d9f-x2.").unwrap();
        assert_eq!(random.len(), 32);
        assert!(sessions.get(&session.id).is_some());
        assert_eq!(
            Sessions::of_replica(None).create(None).unwrap().id.len(),
            32
        );
    }

    #[tokio::test]
    async fn a_full_table_ends_its_least_recently_used_idle_session() {
        let sessions = Sessions::default();
        let first = sessions.create(None).unwrap();
        assert_eq!(first.id.len(), 32);
        assert!(first.id.bytes().all(|b| b.is_ascii_hexdigit()));
        let busy = sessions.create(None).unwrap();
        assert!(busy.open_stream());
        assert!(!busy.open_stream(), "one GET stream at a time");
        for _ in 2..limits::AGGREGATE_HTTP_MAX_SESSIONS {
            sessions.create(None).unwrap();
        }
        assert!(
            sessions.get(&first.id).is_some(),
            "touched: now the most recent"
        );
        let newest = sessions.create(None).unwrap();
        assert!(sessions.get(&first.id).is_some(), "recently used stays");
        assert!(
            sessions.get(&busy.id).is_some(),
            "a session with a stream stays"
        );
        assert!(sessions.get(&newest.id).is_some());
        assert_eq!(sessions.drain().len(), limits::AGGREGATE_HTTP_MAX_SESSIONS);
    }
}
