//! Registry operations on the tools servers expose: listings, calls, reading truncated results,
//! held definitions and their acceptance, the roots change every server is told of.

use std::sync::Arc;

use serde_json::Value;

use crate::convert::{Options, ToolFormat};
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Listing, ListingRequest, ReadOutcome, Rendered};
use crate::supervisor::accept::{self, Acceptance};
use crate::supervisor::awaiting::{self, Waited};
use crate::supervisor::call::{self, CallOptions, CallOutcome};
use crate::supervisor::roster::not_found;

use super::Registry;

impl Registry {
    /// Tool entries in `format` (the session's default when `None`), as values.
    pub(crate) fn tools(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
        servers: Option<&[String]>,
    ) -> Result<Listing> {
        self.check_servers(servers)?;
        let (format, options) = self.format_options(format, strict);
        Ok(self.catalog().listing(format, options, servers))
    }

    /// The `tools/list` result as JSON text: cached per format and options until the tool set
    /// changes (filtered by `servers`: rendered from the cached pieces each time).
    pub(crate) fn tools_answer(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
        defer: Option<bool>,
        servers: Option<&[String]>,
    ) -> Result<Arc<Rendered>> {
        self.check_servers(servers)?;
        self.relist_expired();
        let (format, options) = self.format_options(format, strict);
        Ok(self.catalog().answer(&ListingRequest {
            format,
            options,
            defer,
            servers,
        }))
    }

    /// Starts a background re-list of every list past its positive `ttlMs` (stale-while-
    /// revalidate: the caller answers from the cached catalog now; a changed list reaches the host
    /// as `notifications/tools/changed`). One atomic load while no server sent a positive TTL.
    pub(crate) fn relist_expired(&self) {
        self.roster.relist_expired();
    }

    /// SERVER_NOT_FOUND for the first of `servers` that is not registered.
    pub(crate) fn check_servers(&self, servers: Option<&[String]>) -> Result<()> {
        if let Some(only) = servers {
            let known = self.roster.servers();
            if let Some(missing) = only.iter().find(|s| !known.contains_key(s.as_str())) {
                return Err(not_found(missing));
            }
        }
        Ok(())
    }

    /// A request's format and options, the session's where it gives none.
    pub(crate) fn format_options(
        &self,
        format: Option<ToolFormat>,
        strict: Option<bool>,
    ) -> (ToolFormat, Options) {
        let settings = self.settings();
        let options = Options {
            strict: strict.unwrap_or(settings.strict),
        };
        (format.unwrap_or(settings.format), options)
    }

    /// Validates the arguments against the tool's own schema, starts the server if it is dormant,
    /// calls the tool, and checks the result's size; `options` carry the host's progress and
    /// bounds. A name not listed yet waits for the first start of the server that may have it.
    /// Counted in the metrics: a success's duration by server and tool, a failure by its code.
    pub(crate) async fn call_tool_with(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<Value>,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let outcome = self.call_listed(name, arguments, options).await;
        let metrics = crate::metrics::global();
        match &outcome {
            Ok(o) => metrics.call(Ok((&o.server, &o.tool, o.duration))),
            Err(e) => metrics.call(Err(e.code.as_str())),
        }
        outcome
    }

    async fn call_listed(
        self: &Arc<Self>,
        name: &str,
        arguments: Option<Value>,
        options: CallOptions,
    ) -> Result<CallOutcome> {
        let mut catalog = self.catalog();
        if catalog.get(name).is_none() {
            match awaiting::catalog_with(&self.roster, name).await {
                Waited::Found(updated) => catalog = updated,
                Waited::Failed(e) => return Err(e.with("name", name)),
                Waited::Nothing => {}
            }
        }
        let Some(entry) = catalog.get(name) else {
            return Err(
                call::withdrawn(&self.roster.all(), name).unwrap_or_else(|| {
                    Error::new(
                        ErrorCode::ToolNotFound,
                        format!("no tool named `{name}` ({} tools available)", catalog.len()),
                    )
                    .with("name", name)
                }),
            );
        };
        let arguments = call::arguments(name, entry, arguments)?;
        let server = self.roster.find(entry.server.as_str())?;
        // A call's error carries the server's stderr tail and upstream messages: no secret value
        // of its config may leave with them.
        let outcome = call::call(
            &self.roster,
            &self.results,
            &server,
            entry,
            arguments,
            options,
        )
        .await
        .map_err(|e| server.mask_error(e).with("name", name));
        server
            .stats
            .record(outcome.as_ref().ok().map(|o| o.duration));
        outcome
    }

    /// Tells every running server that the host's roots changed
    /// (`notifications/roots/list_changed`); a server that cannot be written to is skipped.
    pub(crate) async fn roots_changed(&self) {
        let sessions: Vec<_> = self
            .roster
            .all()
            .iter()
            .filter_map(|s| s.slot().session.clone())
            .collect();
        for session in sessions {
            session.client.roots_list_changed().await;
        }
    }

    /// Part of a truncated result's full text: `length` bytes (at most, and by default,
    /// [`crate::limits::RESULT_READ_MAX_BYTES`]) from `offset`, both moved to char boundaries.
    pub(crate) fn read_result(
        &self,
        handle: &str,
        offset: usize,
        length: Option<usize>,
    ) -> Result<ReadOutcome> {
        self.results.read(handle, offset, length)
    }

    /// `tools/accept`: lets each held definition whose hash the host gives back into the tool set.
    pub(crate) fn accept(&self, items: &[Acceptance]) -> Value {
        accept::accept(&self.roster, items)
    }
}
