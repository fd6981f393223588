//! `servers/test` in a throwaway registry (a probe), and the shutdown that stops every server and
//! every probe still running.

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::config::validate_server_name;
use crate::error::{Error, Result};
use crate::supervisor::events::EventSender;
use crate::supervisor::probe;
use crate::supervisor::roster::shutting_down;
use crate::supervisor::settings::AddOptions;
use crate::supervisor::teardown;

use super::Registry;

impl Registry {
    /// Starts `config` as server `name` in a throwaway registry, reports what the start found (see
    /// [`probe::report`]), and returns once its process tree is gone. Nothing is registered here.
    ///
    /// A config that cannot be parsed is CONFIG_INVALID and one the trust gate refuses is
    /// TRUST_REQUIRED, as for `servers/add`; a start that fails is a result with `state: "error"`.
    pub(crate) async fn test(
        self: &Arc<Self>,
        name: &str,
        config: &Value,
        trust: Option<String>,
    ) -> Result<Value> {
        validate_server_name(name)?;
        let probe = {
            // Checked and recorded under one lock, so a concurrent `shutdown` always sees the probe.
            let mut probes = self.probes();
            if self.roster.is_shutting_down() {
                return Err(shutting_down());
            }
            // No one listens: the probe's servers never reach the host's notifications.
            let probe = Registry::new(self.settings().without_cache(), EventSender::discarding());
            probes.push(Arc::clone(&probe));
            probe
        };
        let (this, name, config) = (Arc::clone(self), name.to_owned(), probe::config(config));
        // A tracked task: a host that cancels its wait never leaves the probe's server running, and
        // `shutdown` waits for it.
        let run = self.operations.spawn(async move {
            let begun = Instant::now();
            let options = AddOptions {
                trust,
                ..Default::default()
            };
            let added = probe.add_with(&name, &config, true, options).await;
            let server = probe.roster.server(&name);
            let report =
                added.map(|status| probe::report(status, server.as_deref(), begun.elapsed()));
            probe.shutdown().await;
            let report = match (report, server) {
                (Ok(report), Some(server)) => Ok(probe::with_last_words(report, &server).await),
                (report, _) => report,
            };
            this.probes().retain(|p| !Arc::ptr_eq(p, &probe));
            report
        });
        run.await
            .unwrap_or_else(|e| Err(Error::internal(format!("servers/test did not finish: {e}"))))
    }

    fn probes(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Registry>>> {
        self.probes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether [`Registry::shutdown`] has begun: nothing is added from then on.
    pub(crate) fn is_shutting_down(&self) -> bool {
        self.roster.is_shutting_down()
    }

    /// Stops every server in parallel; returns once every process tree is gone. Nothing starts
    /// after this (pending restarts are dropped).
    pub(crate) async fn shutdown(&self) {
        let servers = self.roster.close();
        for auth in servers.iter().filter_map(|s| s.auth.as_ref()) {
            auth.cancel_login();
        }
        let probes = std::mem::take(&mut *self.probes());
        futures_util::future::join_all(servers.iter().map(|s| teardown::stop(&self.roster, s)))
            .await;
        // `servers/test` runs: their servers stop too (each probe waits for its own start).
        for probe in probes {
            Box::pin(probe.shutdown()).await;
        }
        // Operations that raced this stop see a stale generation and stop their own process.
        self.operations.close();
        self.operations.wait().await;
    }
}
