//! `package` servers: a registry package pinned to one exact version and its archive's hash,
//! fetched once into the cache (the archive verified before anything of it is unpacked or run),
//! and started from there without the network. See docs/packages.md for what is pinned, what is
//! verified, and what is not.
//!
//! Its files:
//! - `cache`: Where a package lives in the cache, `<cache>/packages/<registry>/<name>@<version>-<pin8>` (one …
//! - `der`: The little DER reading a Sigstore bundle needs beyond what webpki does.
//! - `download`: Bounded requests to a package registry.
//! - `fetch_npm`: An npm package's first fetch.
//! - `fetch_pypi`: A PyPI package's first fetch.
//! - `integrity`: An archive's hash in the notation its pin uses (npm.
//! - `pin`: `mcp-sidecar pin`.
//! - `prepare`: A `package` server's program, ready before its spawn.
//! - `provenance`: A package's provenance, read at its first fetch and at `mcp-sidecar pin`.
//! - `record`: What a fetched package left in its cache folder (`record.json`, written last.
//! - `sigstore`: Offline verification of a Sigstore bundle (npm's provenance, PyPI's PEP 740 attestations) against …
//! - `sigstore_bundle`: A Sigstore bundle read into the one signed statement verification checks, from npm's or PyPI's shape.
//! - `sigstore_root`: Sigstore's trusted root (Rekor keys, Fulcio chains, their validity), the public-good one embedded.

mod cache;
mod der;
mod download;
mod fetch_npm;
mod fetch_pypi;
mod integrity;
mod pin;
mod prepare;
mod provenance;
mod record;
mod sigstore;
mod sigstore_bundle;
mod sigstore_root;

pub(crate) use pin::{pin_block, PinRequest};
pub(crate) use prepare::prepare;
