//! The bytes of the sidecar's questions waiting for its peer's answers, in all and per server: a
//! count alone would let 256 questions of 2 MB each (a sampling request carries its messages) sit
//! on a peer that does not answer. A question's bytes are its line as sent; past either bound the
//! question is refused at once ([`AskError::Crowded`]), as past the count.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::ask::AskError;

/// What the waiting questions hold.
pub(super) struct QuestionBytes {
    limit: usize,
    per_server: usize,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    total: usize,
    by_server: HashMap<String, usize>,
}

/// One question's bytes, given back when it ends (dropped).
pub(super) struct Taken {
    ledger: Arc<QuestionBytes>,
    server: String,
    bytes: usize,
}

impl QuestionBytes {
    /// At most `limit` bytes in all, `per_server` of them for one server's questions.
    pub(super) fn new(limit: usize, per_server: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            per_server,
            held: Mutex::default(),
        })
    }

    /// Takes `bytes` for a question of `server`, or says which bound it would pass.
    pub(super) fn take(self: &Arc<Self>, server: &str, bytes: usize) -> Result<Taken, AskError> {
        let mut held = self.held();
        let of_server = held.by_server.get(server).copied().unwrap_or(0);
        let crowded = |what: String, limit: usize| {
            AskError::Crowded {
            reason: format!(
                "a {bytes}-byte request would take {what} past {limit} bytes waiting for the client's answers"
            ),
        }
        };
        if of_server + bytes > self.per_server {
            return Err(crowded(
                format!("server `{server}`'s requests"),
                self.per_server,
            ));
        }
        if held.total + bytes > self.limit {
            return Err(crowded("the requests of every server".into(), self.limit));
        }
        held.total += bytes;
        *held.by_server.entry(server.to_owned()).or_default() += bytes;
        Ok(Taken {
            ledger: Arc::clone(self),
            server: server.to_owned(),
            bytes,
        })
    }

    /// The counts; a poisoned lock is still usable (every update is whole).
    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for Taken {
    fn drop(&mut self) {
        let mut held = self.ledger.held();
        held.total -= self.bytes;
        if let Some(of_server) = held.by_server.get_mut(&self.server) {
            *of_server -= self.bytes;
            if *of_server == 0 {
                held.by_server.remove(&self.server);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_either_bound_a_question_is_refused_and_an_ended_one_gives_its_bytes_back() {
        let ledger = QuestionBytes::new(100, 60);
        let a = ledger.take("a", 50).unwrap();
        let refused = ledger.take("a", 20).err().unwrap();
        assert!(refused.to_string().contains("server `a`"), "{refused}");
        assert_eq!(refused.rpc_code(), -32000);
        let _b = ledger.take("b", 50).unwrap();
        let refused = ledger.take("c", 1).err().unwrap();
        assert!(refused.to_string().contains("every server"), "{refused}");
        drop(a);
        let _a = ledger.take("a", 50).unwrap();
        assert!(ledger.held().by_server.len() == 2);
    }
}
