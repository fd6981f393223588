//! `package` servers: a registry package pinned to one exact version and its archive's hash,
//! fetched once into the cache (the archive verified before anything of it is unpacked or run),
//! and started from there without the network. See docs/packages.md for what is pinned, what is
//! verified, and what is not.

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

pub(crate) use pin::{pin_block, PinRequest};
pub(crate) use prepare::prepare;
