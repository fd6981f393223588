//! How a session starts, in the era the supervisor chose ([`Negotiation`]): the `initialize`
//! handshake, `server/discover`, or one of them first and the other when the server's answer says
//! it speaks the other era. The verdict of each answer is [`crate::mcp::modern`]'s; this file only sends.
//!
//! Why two orders: a legacy stdio server may *exit* on any request before `initialize` (rmcp
//! does), so on stdio `initialize` goes first and a modern-only server's refusal of it (which
//! names the revisions it speaks) leads to `server/discover` on the same process — nobody is ever
//! killed by a probe. Over HTTP nothing dies of a probe, so `server/discover` goes first, as the
//! specification recommends, and a legacy answer leads to `initialize`.

use serde_json::Value;

use super::kind::RequestKind;
use super::session::Client;
use crate::error::{Error, ErrorCode, Result};
use crate::jsonrpc::ErrorObject;
use crate::mcp::handshake::{self, Negotiation, OFFERED_PROTOCOL_VERSION};
use crate::mcp::modern::{self, Verdict};

/// An HTTP 4xx other than 401/403 (which carried no JSON-RPC error: those arrive in-band).
fn is_legacy_refusal(e: &Error) -> bool {
    let status = e.details.get("status").and_then(Value::as_u64).unwrap_or(0);
    e.code == ErrorCode::HttpError && (400..500).contains(&status) && status != 401 && status != 403
}

impl Client {
    /// Starts the session as `how` says; on success the handshake is set.
    pub(super) async fn negotiate(
        &mut self,
        how: &Negotiation,
        capabilities: &Value,
        deadline: tokio::time::Instant,
    ) -> Result<()> {
        match how {
            Negotiation::Legacy(version) => {
                match self.initialize(version, capabilities, deadline).await? {
                    Ok(()) => Ok(()),
                    Err(e) => Err(self.upstream_error(e)),
                }
            }
            Negotiation::Modern(version) => match self.discover(version, deadline).await? {
                Verdict::Modern(h) => self.adopt(h),
                Verdict::Broken(why) => Err(self.version_error(&why)),
                _ => Err(self.version_error(&format!(
                    "it does not speak protocol version {version} (protocolVersion is pinned)"
                ))),
            },
            Negotiation::LegacyFirst => {
                let refusal = match self
                    .initialize(OFFERED_PROTOCOL_VERSION, capabilities, deadline)
                    .await?
                {
                    Ok(()) => return Ok(()),
                    Err(e) => e,
                };
                let version = modern::initialize_refused_as_modern(&refusal)
                    .unwrap_or(crate::era::MODERN_VERSIONS[0]);
                tracing::info!(
                    server = &*self.server,
                    code = refusal.code,
                    "initialize refused; trying server/discover"
                );
                match self.discover(version, deadline).await? {
                    Verdict::Modern(h) => self.adopt(h),
                    // Not a modern server either: the refusal of `initialize` is the error.
                    _ => Err(self.upstream_error(refusal)),
                }
            }
            Negotiation::DiscoverFirst => match self
                .discover(crate::era::MODERN_VERSIONS[0], deadline)
                .await?
            {
                Verdict::Modern(h) => self.adopt(h),
                Verdict::Broken(why) => Err(self.version_error(&why)),
                Verdict::Legacy | Verdict::Retry(_) => {
                    tracing::debug!(
                        server = &*self.server,
                        "not a 2026-07-28 server; initialize"
                    );
                    match self
                        .initialize(OFFERED_PROTOCOL_VERSION, capabilities, deadline)
                        .await?
                    {
                        Ok(()) => Ok(()),
                        Err(e) => Err(self.upstream_error(e)),
                    }
                }
            },
        }
    }

    /// `initialize` then `notifications/initialized`; `Ok(Err)` carries the server's refusal.
    async fn initialize(
        &mut self,
        version: &str,
        capabilities: &Value,
        deadline: tokio::time::Instant,
    ) -> Result<std::result::Result<(), ErrorObject>> {
        self.modern = None;
        let params = handshake::initialize_params(version, capabilities.clone());
        let reply = self
            .request_until(RequestKind::Initialize, &params, deadline)
            .await?;
        let result = match reply.outcome {
            Ok(result) => result,
            Err(e) => return Ok(Err(e)),
        };
        self.handshake = handshake::accept_initialize_result(&self.server, &result)?;
        self.notify("notifications/initialized", None).await?;
        Ok(Ok(()))
    }

    /// `server/discover` at `version`, asked once more at the revision a `-32022` names (the
    /// server may reject the first request of a session that way whatever it says).
    async fn discover(&mut self, version: &str, deadline: tokio::time::Instant) -> Result<Verdict> {
        let mut version = version.to_owned();
        for attempt in 0..2 {
            self.modern = Some(version.clone());
            let reply = match self
                .request_until(RequestKind::Discover, &serde_json::json!({}), deadline)
                .await
            {
                Ok(reply) => reply,
                // An HTTP refusal without a JSON-RPC error in its body (a legacy server's 400
                // "not initialized", 404, 405) says "legacy"; 401/403 are authorization problems
                // (answered by the OAuth layer before this), 5xx and timeouts mean "down".
                Err(e) if is_legacy_refusal(&e) => return Ok(Verdict::Legacy),
                Err(e) => return Err(e),
            };
            match modern::classify_discover(&reply.outcome) {
                Verdict::Retry(next) if attempt == 0 => version = next.to_owned(),
                Verdict::Retry(_) => {
                    return Ok(Verdict::Broken(
                        "the server refused server/discover twice with -32022".into(),
                    ))
                }
                verdict => return Ok(verdict),
            }
        }
        unreachable!("the loop returns on its second attempt")
    }

    fn adopt(&mut self, handshake: handshake::Handshake) -> Result<()> {
        self.modern = Some(handshake.protocol_version.clone());
        self.handshake = handshake;
        self.open_listen();
        Ok(())
    }

    fn version_error(&self, why: &str) -> Error {
        Error::new(
            ErrorCode::VersionUnsupported,
            format!("server `{}`: {why}", self.server),
        )
        .with("server", &*self.server)
        .with("setting", "protocolVersion")
    }
}
