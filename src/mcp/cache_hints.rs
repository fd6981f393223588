//! The 2026-07-28 cache hints of a `tools/list` answer (`ttlMs`, `cacheScope`), read from each
//! page and folded into one for the whole list. Pure: when the list is fresh is decided by the
//! supervisor (`supervisor::freshness`), which is handed these hints.

use std::time::Duration;

use serde_json::Value;

use crate::limits;

/// How long a listed tool set may be reused, and with whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheHints {
    /// Fresh for this long after receipt. Zero (absent, negative, or not a number — older servers
    /// send none) means stale at once: the sidecar then relies on change notifications.
    pub ttl: Duration,
    /// `cacheScope: "private"`: reuse only within this authorization context, so never written to
    /// the on-disk schema cache, which is shared across runs.
    pub private: bool,
}

impl CacheHints {
    /// The hints of one page. A `ttlMs` above [`limits::MAX_LIST_TTL`] is held to it.
    pub fn of_page(page: &Value) -> Self {
        let ttl = page
            .get("ttlMs")
            .and_then(Value::as_f64)
            .filter(|ms| ms.is_finite() && *ms > 0.0)
            .map_or(Duration::ZERO, |ms| {
                Duration::from_secs_f64((ms / 1000.0).min(limits::MAX_LIST_TTL.as_secs_f64()))
            });
        Self {
            ttl,
            private: page.get("cacheScope").and_then(Value::as_str) == Some("private"),
        }
    }

    /// The hints of a list of several pages: TTLs are per page, so the whole list is fresh only
    /// while its shortest-lived page is; one private page makes the list private.
    pub fn and(self, page: Self) -> Self {
        Self {
            ttl: self.ttl.min(page.ttl),
            private: self.private || page.private,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_negative_and_junk_ttls_are_zero() {
        for page in [
            json!({}),
            json!({"ttlMs": -5}),
            json!({"ttlMs": "100"}),
            json!({"ttlMs": null}),
            json!({"ttlMs": 0}),
        ] {
            assert_eq!(CacheHints::of_page(&page).ttl, Duration::ZERO, "{page}");
        }
        assert_eq!(
            CacheHints::of_page(&json!({"ttlMs": 1500})).ttl,
            Duration::from_millis(1500)
        );
        assert_eq!(
            CacheHints::of_page(&json!({"ttlMs": 1e300})).ttl,
            limits::MAX_LIST_TTL
        );
    }

    #[test]
    fn the_shortest_page_and_any_private_page_decide() {
        let a = CacheHints::of_page(&json!({"ttlMs": 5000, "cacheScope": "public"}));
        let b = CacheHints::of_page(&json!({"ttlMs": 100, "cacheScope": "private"}));
        assert!(!a.private && b.private);
        let both = a.and(b);
        assert_eq!(both.ttl, Duration::from_millis(100));
        assert!(both.private);
    }
}
