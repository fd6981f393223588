//! Progress of a request in flight: the `progressToken` the client gives it, the server's
//! `notifications/progress` routed back to it (the reader calls [`ProgressTable::route`]), and the
//! wait for its answer when progress matters — forwarded to whoever watches (latest wins: a
//! watcher that falls behind sees the newest progress, never a queue) and, with
//! `resetTimeoutOnProgress`, restarting the timeout on each notification up to a hard total.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::trust::secrets::Secrets;

/// The latest progress of one call, as the params of `notifications/progress` without the
/// token: `{progress, total?, message?}`. `None` until the first one.
pub type Progress = Option<Value>;

/// How a call with progress is bounded and where its progress goes.
#[derive(Clone, Debug)]
pub struct ProgressPolicy {
    /// Time allowed for the answer (from the start, or from the last progress when `reset`).
    pub timeout: Duration,
    /// Each progress notification restarts `timeout`.
    pub reset: bool,
    /// The hard bound from the start, whatever progress says.
    pub max_total: Option<Duration>,
    /// Where the latest progress goes (the host's watcher), if anyone wants it.
    pub sink: Option<watch::Sender<Progress>>,
}

/// Which bound ended a wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `timeout` (since the start, or since the last progress).
    Timeout,
    /// `max_total`.
    Total,
}

/// The progress routes of one session, by token.
#[derive(Default)]
pub struct ProgressTable {
    next: AtomicI64,
    routes: Mutex<HashMap<i64, watch::Sender<Progress>>>,
}

impl ProgressTable {
    /// A fresh token and the receiver of its progress; the route lives as long as the watch.
    pub fn watch(self: &Arc<Self>) -> Watching {
        let token = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = watch::channel(None);
        self.lock().insert(token, tx);
        Watching {
            table: Arc::clone(self),
            token,
            rx,
        }
    }

    /// `notifications/progress` from the server: kept as the latest of its call (its message
    /// masked); dropped when its token is not one in flight or it carries no number.
    pub fn route(&self, params: Option<Value>, secrets: &Secrets) -> bool {
        let Some(Value::Object(mut params)) = params else {
            return false;
        };
        let token = params.remove("progressToken").and_then(|t| t.as_i64());
        let Some(token) = token else { return false };
        if !params.get("progress").is_some_and(Value::is_number) {
            return false;
        }
        let mut progress: Map<String, Value> = params
            .into_iter()
            .filter(|(k, _)| matches!(k.as_str(), "progress" | "total" | "message"))
            .collect();
        if let Some(message) = progress.get_mut("message") {
            secrets.mask_json(message);
        }
        match self.lock().get(&token) {
            Some(route) => {
                route.send_replace(Some(Value::Object(progress)));
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, watch::Sender<Progress>>> {
        // A poisoned lock is still consistent: every critical section is one map operation.
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The progress route of one request in flight; dropping it ends the route.
pub struct Watching {
    table: Arc<ProgressTable>,
    pub token: i64,
    rx: watch::Receiver<Progress>,
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.table.lock().remove(&self.token);
    }
}

impl Watching {
    /// Waits for `answer` under `policy` from `started`: each progress goes to the policy's sink
    /// and, with `reset`, restarts the timeout (never past `max_total`). `Err` names the bound.
    pub async fn wait<T>(
        &mut self,
        answer: impl Future<Output = T>,
        started: Instant,
        policy: &ProgressPolicy,
    ) -> Result<T, Bound> {
        let total_end = policy.max_total.map(|total| started + total);
        let deadline = |from: Instant| {
            let end = from + policy.timeout;
            match total_end {
                Some(total) if total <= end => (total, Bound::Total),
                _ => (end, Bound::Timeout),
            }
        };
        let (mut end, mut bound) = deadline(started);
        tokio::pin!(answer);
        loop {
            tokio::select! {
                // The answer first: progress racing it restarts nothing any more, but the
                // latest one, sent before the answer, still goes to the sink.
                biased;
                answer = &mut answer => {
                    if self.rx.has_changed().unwrap_or(false) {
                        self.forward(policy);
                    }
                    return Ok(answer);
                }
                () = tokio::time::sleep_until(end) => return Err(bound),
                // The route lives as long as `self`, so `changed` cannot fail while we wait.
                Ok(()) = self.rx.changed() => {
                    self.forward(policy);
                    if policy.reset {
                        (end, bound) = deadline(Instant::now());
                    }
                }
            }
        }
    }
}

impl Watching {
    /// The latest progress to the policy's sink, marked seen.
    fn forward(&mut self, policy: &ProgressPolicy) {
        let progress = self.rx.borrow_and_update().clone();
        if let Some(sink) = &policy.sink {
            sink.send_replace(progress);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test(start_paused = true)]
    async fn progress_restarts_the_timeout_up_to_the_total() {
        let table = Arc::new(ProgressTable::default());
        let mut watching = table.watch();
        let token = watching.token;
        let (sink, mut seen) = watch::channel(None);
        let policy = ProgressPolicy {
            timeout: Duration::from_secs(1),
            reset: true,
            max_total: Some(Duration::from_millis(2500)),
            sink: Some(sink),
        };
        let started = Instant::now();
        let table2 = Arc::clone(&table);
        tokio::spawn(async move {
            for step in 1..=10 {
                tokio::time::sleep(Duration::from_millis(600)).await;
                table2.route(
                    Some(json!({"progressToken": token, "progress": step})),
                    &Secrets::default(),
                );
            }
        });
        let never = std::future::pending::<()>();
        let ended = watching.wait(never, started, &policy).await;
        assert_eq!(ended, Err(Bound::Total));
        assert_eq!(started.elapsed(), Duration::from_millis(2500));
        assert!(seen.has_changed().unwrap());
        assert_eq!(
            seen.borrow_and_update().clone(),
            Some(json!({"progress": 4}))
        );
        // The watch outlives one wait (a call asked for input waits again under the same token);
        // its route ends when the call lets it go.
        drop(watching);
        assert!(
            !table.route(
                Some(json!({"progressToken": token, "progress": 9})),
                &Secrets::default()
            ),
            "the route ended with the watch"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn without_reset_the_timeout_runs_from_the_start() {
        let table = Arc::new(ProgressTable::default());
        let mut watching = table.watch();
        let token = watching.token;
        let policy = ProgressPolicy {
            timeout: Duration::from_secs(1),
            reset: false,
            max_total: None,
            sink: None,
        };
        let started = Instant::now();
        let table2 = Arc::clone(&table);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(900)).await;
            table2.route(
                Some(json!({"progressToken": token, "progress": 1})),
                &Secrets::default(),
            );
        });
        let ended = watching
            .wait(std::future::pending::<()>(), started, &policy)
            .await;
        assert_eq!(ended, Err(Bound::Timeout));
        assert_eq!(started.elapsed(), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn progress_that_came_with_the_answer_still_reaches_the_sink() {
        let table = Arc::new(ProgressTable::default());
        let mut watching = table.watch();
        let (sink, seen) = watch::channel(None);
        let policy = ProgressPolicy {
            timeout: Duration::from_secs(1),
            reset: false,
            max_total: None,
            sink: Some(sink),
        };
        let token = watching.token;
        table.route(
            Some(json!({"progressToken": token, "progress": 2})),
            &Secrets::default(),
        );
        let answered = watching.wait(async { 42 }, Instant::now(), &policy).await;
        assert_eq!(answered, Ok(42));
        assert_eq!(seen.borrow().clone(), Some(json!({"progress": 2})));
    }

    #[test]
    fn only_a_numbered_progress_of_a_known_token_is_kept() {
        let table = Arc::new(ProgressTable::default());
        let watching = table.watch();
        let secrets = Secrets::from_values(["s3cr3t-token-value".to_owned()]);
        let t = watching.token;
        assert!(!table.route(
            Some(json!({"progressToken": t + 1, "progress": 1})),
            &secrets
        ));
        assert!(!table.route(
            Some(json!({"progressToken": "flood", "progress": 1})),
            &secrets
        ));
        assert!(!table.route(
            Some(json!({"progressToken": t, "progress": "half"})),
            &secrets
        ));
        assert!(table.route(
            Some(json!({"progressToken": t, "progress": 1, "total": 2, "message": "using s3cr3t-token-value", "x": 1})),
            &secrets
        ));
        let latest = watching.rx.borrow().clone().unwrap();
        assert_eq!(
            latest,
            json!({"progress": 1, "total": 2, "message": "using ***"})
        );
    }
}
