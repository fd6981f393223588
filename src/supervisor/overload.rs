//! The per-server cap on `tools/call`s in flight (`maxInflight`). A call past it is refused at
//! once with OVERLOADED instead of waiting: one stalled server must not take every request slot
//! of the host session (which pushes back into reading stdin, see `serving::flow`) while calls to the
//! other servers could go on. A call counts from the moment it picks its server (also while it
//! waits for the server to start) until it is answered, cancelled or timed out.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, ErrorCode, Result};

/// Calls in flight on one server, across its generations.
#[derive(Debug, Default)]
pub(super) struct CallCount(AtomicUsize);

/// One call counted in a [`CallCount`]; dropping it ends the call.
pub(super) struct Counted<'a>(&'a AtomicUsize);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl CallCount {
    /// Counts one more call on server `server`, or refuses it with OVERLOADED when `limit` calls
    /// are in flight already.
    pub(super) fn enter(&self, server: &str, limit: usize) -> Result<Counted<'_>> {
        let before = self.0.fetch_add(1, Ordering::AcqRel);
        let counted = Counted(&self.0);
        if before < limit {
            return Ok(counted);
        }
        drop(counted);
        Err(overloaded(server, limit))
    }

    /// Calls in flight now.
    pub(super) fn current(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// OVERLOADED: naming the server, the setting and its value.
fn overloaded(server: &str, limit: usize) -> Error {
    Error::new(
        ErrorCode::Overloaded,
        format!("server `{server}` already has {limit} calls in flight (maxInflight); this call was refused, retry once some have been answered"),
    )
    .with("server", server)
    .with("setting", "maxInflight")
    .with("limit", limit as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_a_call_is_refused_until_one_ends() {
        let count = CallCount::default();
        let a = count.enter("s", 2).unwrap();
        let _b = count.enter("s", 2).unwrap();
        let refused = count.enter("s", 2).err().unwrap();
        assert_eq!(refused.code, ErrorCode::Overloaded);
        assert_eq!(refused.details["setting"], "maxInflight");
        assert_eq!(refused.details["limit"], 2);
        assert_eq!(refused.details["server"], "s");
        assert_eq!(count.current(), 2, "a refusal leaves no trace");
        drop(a);
        let _c = count.enter("s", 2).unwrap();
    }
}
