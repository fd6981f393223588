//! One remote server's authorization record (its tokens and registered clients per authorization
//! server, the one in use, the scopes it asked for): read from the token store once, kept in
//! memory, written back after each change; every secret in it is masked in every log line.

use std::sync::{Arc, Mutex};

use reqwest::Url;

use super::challenge::Challenge;
use super::discovery::Discovered;
use super::scopes;
use super::store::{Record, TokenStore};
use super::token::{Client, Tokens};

#[derive(Default)]
pub(super) struct State {
    /// Whether `record` was read from the store yet.
    pub(super) loaded: bool,
    pub(super) record: Record,
    /// The last challenge seen (its `resource_metadata` leads discovery).
    pub(super) challenge: Challenge,
    /// Scopes the server's challenges asked for, and those asked for before: every login asks for
    /// all of them (a step-up keeps what was granted).
    pub(super) wanted: Vec<String>,
}

/// A server's record and where it is kept.
pub(super) struct KeptRecord {
    /// The server's name, for the log.
    server: String,
    /// The store's key: the server's URL.
    key: String,
    store: Arc<TokenStore>,
    state: Mutex<State>,
}

impl KeptRecord {
    pub(super) fn new(server: &str, url: &Url, store: Arc<TokenStore>) -> Self {
        Self {
            server: server.to_owned(),
            key: url.as_str().to_owned(),
            store,
            state: Mutex::new(State::default()),
        }
    }

    /// The record as the store holds it now (a `login` command in another process may have
    /// written it).
    pub(super) async fn stored(&self) -> Record {
        self.store.load(&self.key).await
    }

    /// `record`, read from the store, becomes the one in use.
    pub(super) fn adopt(&self, record: Record) {
        register_secrets(&record);
        self.lock().record = record;
    }

    /// The state, locked for a moment (never across an await).
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the record from the store the first time it is needed.
    pub(super) async fn ensure_loaded(&self) {
        if self.lock().loaded {
            return;
        }
        let record = self.store.load(&self.key).await;
        let mut s = self.lock();
        if !s.loaded {
            register_secrets(&record);
            s.wanted = record
                .current()
                .map(|(_, r)| r.scopes.clone())
                .unwrap_or_default();
            s.record = record;
            s.loaded = true;
        }
    }

    /// The tokens of the authorization server in use.
    pub(super) fn tokens(&self) -> Option<Tokens> {
        self.lock()
            .record
            .current()
            .and_then(|(_, r)| r.tokens.clone())
    }

    pub(super) fn access_token(&self) -> Option<String> {
        self.tokens().map(|t| t.access_token)
    }

    /// The authorization server in use.
    pub(super) fn current_issuer(&self) -> Option<String> {
        self.lock().record.current.clone()
    }

    /// Keeps what a challenge says for the next login: its metadata location and its scopes.
    pub(super) fn remember(&self, challenge: &Challenge) {
        let mut s = self.lock();
        scopes::add(&mut s.wanted, challenge.scopes());
        if challenge.resource_metadata.is_some() || s.challenge.resource_metadata.is_none() {
            s.challenge = challenge.clone();
        }
    }

    /// Keeps the tokens of a login under its issuer, which becomes the one in use.
    pub(super) async fn keep(
        &self,
        discovered: &Discovered,
        tokens: Tokens,
        registered: Option<Client>,
        scopes: Vec<String>,
    ) {
        {
            let mut s = self.lock();
            let issuer = discovered.server.issuer.clone();
            let entry = s.record.issuers.entry(issuer.clone()).or_default();
            entry.tokens = Some(tokens);
            if registered.is_some() {
                entry.client = registered;
            }
            entry.resource = Some(discovered.resource.resource.clone());
            entry.scopes = scopes.clone();
            s.record.current = Some(issuer);
            // What was granted stays asked for: a later step-up adds to it (SEP-2350).
            scopes::add(&mut s.wanted, scopes);
            register_secrets(&s.record);
        }
        self.save().await;
    }

    /// Drops the tokens kept for `issuer` (its registered client stays).
    pub(super) async fn forget_tokens(&self, issuer: &str) {
        {
            let mut s = self.lock();
            if let Some(entry) = s.record.issuers.get_mut(issuer) {
                entry.tokens = None;
            }
        }
        self.save().await;
    }

    /// Writes the record to the store; when that fails it stays in memory (logged).
    pub(super) async fn save(&self) {
        let record = self.lock().record.clone();
        if let Err(e) = self.store.save(&self.key, &record).await {
            tracing::warn!(server = %self.server, "cannot write the token store: {e}; the tokens stay in memory");
        }
    }
}

/// Every secret of `record` joins the set every log line is masked with.
fn register_secrets(record: &Record) {
    crate::logging::register_secrets(record.secrets());
}
