//! An archive's hash in the notation its pin uses (npm: SRI `sha512-<base64>`; PyPI: sha256 in
//! hex), computed as the bytes arrive, and the PACKAGE_INTEGRITY error that names the expected
//! and the actual hash.

use std::path::Path;

use base64::Engine;
use sha2::{Digest, Sha256, Sha512};
use tokio::io::AsyncReadExt;

use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode};

/// A running hash in the registry's notation.
pub(super) enum Hasher {
    Sha512(Sha512),
    Sha256(Sha256),
}

impl Hasher {
    pub(super) fn for_registry(registry: PackageRegistry) -> Self {
        match registry {
            PackageRegistry::Npm => Self::Sha512(Sha512::new()),
            PackageRegistry::Pypi => Self::Sha256(Sha256::new()),
        }
    }

    pub(super) fn update(&mut self, bytes: &[u8]) {
        match self {
            Self::Sha512(h) => h.update(bytes),
            Self::Sha256(h) => h.update(bytes),
        }
    }

    /// `sha512-<base64>` or the sha256's lowercase hex.
    pub(super) fn finish(self) -> String {
        match self {
            Self::Sha512(h) => format!(
                "sha512-{}",
                base64::engine::general_purpose::STANDARD.encode(h.finalize())
            ),
            Self::Sha256(h) => hex::encode(h.finalize()),
        }
    }
}

/// The hash of a file in `registry`'s notation, read in pieces.
pub(super) async fn hash_file(registry: PackageRegistry, path: &Path) -> std::io::Result<String> {
    let mut file = tokio::fs::File::open(path).await?;
    let mut hasher = Hasher::for_registry(registry);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).await?;
        if n == 0 {
            return Ok(hasher.finish());
        }
        hasher.update(&buf[..n]);
    }
}

/// sha256 in hex of a file small enough to read whole (a lock file, an install report).
pub(super) async fn sha256_of(path: &Path) -> std::io::Result<String> {
    Ok(hex::encode(Sha256::digest(tokio::fs::read(path).await?)))
}

/// PACKAGE_INTEGRITY: `what` (the registry's archive, the cached copy…) does not match the pin.
pub(super) fn mismatch(
    server: &str,
    spec: &PackageSpec,
    what: &str,
    actual: Option<&str>,
) -> Error {
    let field = match spec.registry {
        PackageRegistry::Npm => "integrity",
        PackageRegistry::Pypi => "sha256",
    };
    let found = actual.map_or_else(|| "none".to_owned(), str::to_owned);
    let error = Error::new(
        ErrorCode::PackageIntegrity,
        format!(
            "server `{server}`: {what} of {} does not match the pinned `package.{field}`: \
             expected {}, found {found}; nothing of it was installed or run",
            spec.display(),
            spec.pin
        ),
    )
    .with("server", server)
    .with("package", spec.display())
    .with("expected", spec.pin.clone());
    match actual {
        Some(a) => error.with("actual", a),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notations() {
        let mut h = Hasher::for_registry(PackageRegistry::Npm);
        h.update(b"abc");
        assert_eq!(h.finish(), "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==");
        let mut h = Hasher::for_registry(PackageRegistry::Pypi);
        h.update(b"abc");
        assert_eq!(
            h.finish(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
