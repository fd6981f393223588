//! OAuth 2.1 for remote MCP servers (the MCP authorization specification, 2025-11-25 and
//! 2026-07-28): discovery, client identity, PKCE, the browser step, tokens kept and refreshed.
//! Used by the HTTP transports (every request carries the server's token; a 401 or a
//! `403 insufficient_scope` comes here) and by the supervisor and host for logins and logouts.
//!
//! Files, lowest first, each importing only files listed before it: `error`, `challenge`
//! (`WWW-Authenticate`), `reach` (which URLs a server's word may send the sidecar to: no SSRF),
//! `http` (bounded JSON requests to OAuth endpoints), `discovery` (RFC 9728,
//! RFC 8414, OpenID Connect), `pkce`, `token` (the token endpoint, the tokens kept), `store` (the
//! 0600 files or memory), `callback` (the loopback listener), `authorize` (the request and the
//! checks of its answer), `register` (client identity), `renew` (a refresh), `scopes` (which a
//! login asks for), `assertion` (the `private_key_jwt` client assertion of the client-credentials
//! grant), `browser` (the step only a person can do, asked through the `ask` seam),
//! `login` (one login), `token_file` (a token read from a file
//! something else keeps fresh), `kept_record` (one server's tokens and clients, in memory and in
//! the store), `server_auth` (one server's tokens, refreshes, logins and logout).

mod assertion;
mod authorize;
mod browser;
mod callback;
mod challenge;
mod discovery;
mod error;
mod http;
mod kept_record;
mod login;
mod pkce;
mod reach;
mod register;
mod renew;
mod scopes;
mod server_auth;
mod store;
mod token;
mod token_file;

pub(crate) use challenge::Challenge;
pub(crate) use error::AuthError;
pub(crate) use server_auth::{Recovery, ServerAuth};
pub(crate) use store::TokenStore;
