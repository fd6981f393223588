//! The store behind `results/read`: full texts of truncated tool results, kept in memory for a
//! bounded time ([`limits::RESULT_STORE_TTL`], renewed by each read) and size
//! ([`limits::RESULT_STORE_MAX_BYTES`] in all; the least recently used text goes first). A handle
//! that expired, was evicted, or never existed reads as RESULT_EXPIRED.
//!
//! [`ResultStore::fit`] cuts a result that is over its budget and keeps the full text under a fresh
//! handle; [`ResultStore::read`] answers `results/read` from it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::convert::budget;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// How a result was made to fit its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Truncation {
    /// Size of the server's whole answer, in bytes.
    pub original_bytes: usize,
    /// Where the full text can be read, when part of the text was cut and it could be kept.
    pub handle: Option<String>,
    /// The cut part of the text, when there is one.
    pub cut: Option<budget::Cut>,
}

impl Truncation {
    /// `{originalBytes, handle?, offset?, length?, totalBytes?}`.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::json!({ "originalBytes": self.original_bytes });
        if let Some(handle) = &self.handle {
            out["handle"] = Value::from(handle.as_str());
        }
        if let Some(cut) = self.cut {
            out["offset"] = Value::from(cut.offset);
            out["length"] = Value::from(cut.length);
            out["totalBytes"] = Value::from(cut.total_bytes);
        }
        out
    }
}

/// One `results/read` answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    pub text: String,
    /// Where `text` starts (the requested offset moved down to a char boundary).
    pub offset: usize,
    /// Bytes of `text`.
    pub length: usize,
    pub total_bytes: usize,
    /// `offset + length == total_bytes`.
    pub eof: bool,
}

pub struct ResultStore {
    max_bytes: usize,
    ttl: Duration,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    next_handle: u64,
    /// Increases on every store and read: the entry with the smallest `used` is evicted first.
    clock: u64,
}

struct Entry {
    text: Arc<str>,
    used: u64,
    expires: Instant,
}

impl Default for ResultStore {
    fn default() -> Self {
        Self::new(limits::RESULT_STORE_MAX_BYTES, limits::RESULT_STORE_TTL)
    }
}

impl ResultStore {
    pub fn new(max_bytes: usize, ttl: Duration) -> Self {
        Self {
            max_bytes,
            ttl,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a text of `bytes` can be kept at all.
    pub fn fits(&self, bytes: usize) -> bool {
        bytes <= self.max_bytes
    }

    /// A fresh handle, to name in the marker before the text is stored.
    pub fn next_handle(&self) -> String {
        let mut inner = self.inner();
        inner.next_handle += 1;
        format!("r-{}", inner.next_handle)
    }

    /// Keeps `text` under `handle`, evicting expired and then least recently used texts to make
    /// room. A text that does not [`fits`](Self::fits) is not kept.
    pub fn insert(&self, handle: String, text: String) {
        self.insert_at(handle, text, Instant::now());
    }

    fn insert_at(&self, handle: String, text: String, now: Instant) {
        if !self.fits(text.len()) {
            return;
        }
        let mut inner = self.inner();
        inner.purge_expired(now);
        while inner.bytes + text.len() > self.max_bytes {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(h, _)| h.clone())
            else {
                break;
            };
            inner.remove(&oldest);
        }
        inner.clock += 1;
        inner.bytes += text.len();
        let entry = Entry {
            text: Arc::from(text),
            used: inner.clock,
            expires: now + self.ttl,
        };
        if let Some(old) = inner.entries.insert(handle, entry) {
            inner.bytes -= old.text.len();
        }
    }

    /// The full text under `handle`; renews its lifetime.
    pub fn get(&self, handle: &str) -> Result<Arc<str>> {
        self.get_at(handle, Instant::now())
    }

    fn get_at(&self, handle: &str, now: Instant) -> Result<Arc<str>> {
        let mut inner = self.inner();
        inner.purge_expired(now);
        inner.clock += 1;
        let clock = inner.clock;
        match inner.entries.get_mut(handle) {
            Some(entry) => {
                entry.used = clock;
                entry.expires = now + self.ttl;
                Ok(Arc::clone(&entry.text))
            }
            None => Err(Error::new(
                ErrorCode::ResultExpired,
                format!(
                    "no stored result `{handle}`: it expired ({} s after its last read), was evicted to stay within {} bytes, or never existed",
                    self.ttl.as_secs(),
                    self.max_bytes
                ),
            )
            .with("handle", handle)),
        }
    }

    /// Cuts `result` (whose answer was `original_bytes` long) to `budget` and keeps its full text for
    /// `results/read`, when it fits the store; otherwise the cut result names no handle.
    pub fn fit(&self, result: &Value, original_bytes: usize, budget: usize) -> (Value, Truncation) {
        let handle = self.next_handle();
        let mut fitted = budget::fit(result, budget, Some(&handle));
        let mut kept = fitted.full_text.is_some();
        if fitted
            .full_text
            .as_ref()
            .is_some_and(|full| !self.fits(full.len()))
        {
            fitted = budget::fit(result, budget, None);
            kept = false;
        }
        if let (true, Some(full)) = (kept, fitted.full_text) {
            self.insert(handle.clone(), full);
        }
        (
            fitted.result,
            Truncation {
                original_bytes,
                handle: kept.then_some(handle),
                cut: fitted.cut,
            },
        )
    }

    /// Part of a kept text: `length` bytes (at most, and by default,
    /// [`limits::RESULT_READ_MAX_BYTES`]) from `offset`, both moved to char boundaries.
    pub fn read(&self, handle: &str, offset: usize, length: Option<usize>) -> Result<ReadOutcome> {
        let text = self.get(handle)?;
        let length = length
            .unwrap_or(limits::RESULT_READ_MAX_BYTES)
            .min(limits::RESULT_READ_MAX_BYTES);
        let (start, part) = budget::read(&text, offset, length);
        Ok(ReadOutcome {
            text: part.to_string(),
            offset: start,
            length: part.len(),
            total_bytes: text.len(),
            eof: start + part.len() >= text.len(),
        })
    }

    /// Bytes currently kept.
    pub fn bytes(&self) -> usize {
        self.inner().bytes
    }
}

impl Inner {
    fn purge_expired(&mut self, now: Instant) {
        let expired: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(h, _)| h.clone())
            .collect();
        for handle in expired {
            self.remove(&handle);
        }
    }

    fn remove(&mut self, handle: &str) {
        if let Some(entry) = self.entries.remove(handle) {
            self.bytes -= entry.text.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_reads_and_expires() {
        let store = ResultStore::new(100, Duration::from_secs(60));
        let t0 = Instant::now();
        let h = store.next_handle();
        assert_eq!(h, "r-1");
        store.insert_at(h.clone(), "hello".into(), t0);
        assert_eq!(
            &*store.get_at(&h, t0 + Duration::from_secs(59)).unwrap(),
            "hello"
        );
        // The read renewed it.
        assert!(store.get_at(&h, t0 + Duration::from_secs(100)).is_ok());
        let e = store.get_at(&h, t0 + Duration::from_secs(161)).unwrap_err();
        assert_eq!(e.code, ErrorCode::ResultExpired);
        assert_eq!(e.details["handle"], "r-1");
        assert_eq!(store.bytes(), 0);
        assert_eq!(
            store.get("r-999").unwrap_err().code,
            ErrorCode::ResultExpired
        );
    }

    #[test]
    fn least_recently_used_goes_first() {
        let store = ResultStore::new(10, Duration::from_secs(60));
        let t = Instant::now();
        store.insert_at("a".into(), "aaaa".into(), t);
        store.insert_at("b".into(), "bbbb".into(), t);
        store.get_at("a", t).unwrap();
        store.insert_at("c".into(), "cccc".into(), t);
        assert!(store.get_at("a", t).is_ok());
        assert!(store.get_at("b", t).is_err());
        assert!(store.get_at("c", t).is_ok());
        assert_eq!(store.bytes(), 8);
        // Too large to keep at all: nothing is evicted for it.
        assert!(!store.fits(11));
        store.insert_at("d".into(), "d".repeat(11), t);
        assert!(store.get_at("d", t).is_err());
        assert_eq!(store.bytes(), 8);
    }

    #[test]
    fn a_cut_result_is_kept_and_read_back_in_parts() {
        let store = ResultStore::new(10_000, Duration::from_secs(60));
        let body = "é".repeat(500);
        let result = serde_json::json!({"content": [{"type": "text", "text": body}]});
        let (_, truncation) = store.fit(&result, 2_000, 200);
        let handle = truncation.handle.clone().unwrap();
        assert_eq!(truncation.to_json()["handle"], handle.as_str());
        let part = store.read(&handle, 1, Some(10)).unwrap();
        // Offset 1 is inside the first `é`: the part starts at 0.
        assert_eq!((part.offset, part.length, part.eof), (0, 10, false));
        assert_eq!(part.total_bytes, body.len());
        let rest = store.read(&handle, 10, None).unwrap();
        assert!(rest.eof);
        assert_eq!(part.text + &rest.text, body);
    }

    #[test]
    fn a_text_too_large_to_keep_names_no_handle() {
        let store = ResultStore::new(100, Duration::from_secs(60));
        let result = serde_json::json!({"content": [{"type": "text", "text": "x".repeat(500)}]});
        let (_, truncation) = store.fit(&result, 600, 50);
        assert_eq!(truncation.handle, None);
        assert_eq!(store.bytes(), 0);
    }
}
