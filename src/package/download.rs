//! Bounded requests to a package registry: a metadata document read whole up to
//! [`limits::PACKAGE_METADATA_MAX_BYTES`], an archive written to a file and hashed as it arrives
//! up to [`limits::PACKAGE_ARCHIVE_MAX_BYTES`]. Failures name the package and the URL.

use std::path::Path;

use serde_json::Value;
use tokio::io::AsyncWriteExt;

use super::integrity::Hasher;
use crate::config::PackageSpec;
use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// The HTTP client of one fetch.
pub(super) fn client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .user_agent(concat!("mcp-sidecar/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| Error::internal(format!("HTTP client: {e}")))
}

/// `url` as errors show it: without the credentials a configured registry URL may carry
/// (`https://user:token@registry…`) and without its query.
fn shown(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.to_string()
        }
        Err(_) => "(an invalid URL)".to_owned(),
    }
}

fn unreachable(spec: &PackageSpec, url: &str, e: &reqwest::Error) -> Error {
    let url = shown(url);
    // reqwest's message repeats the URL it was given: only its kind is kept.
    let why = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "the request failed"
    };
    Error::new(
        ErrorCode::NetworkError,
        format!(
            "package {}: cannot fetch {url}: {why} (the first start of a package server needs its registry)",
            spec.display()
        ),
    )
    .with("package", spec.display())
}

async fn get(client: &reqwest::Client, spec: &PackageSpec, url: &str) -> Result<reqwest::Response> {
    // PyPI's Simple API answers JSON (PEP 691) only when asked; npm answers JSON anyway.
    let response = client
        .get(url)
        .header(
            reqwest::header::ACCEPT,
            "application/vnd.pypi.simple.v1+json, application/json;q=0.9",
        )
        .send()
        .await
        .map_err(|e| unreachable(spec, url, &e))?;
    if !response.status().is_success() {
        let status = response.status().as_u16();
        let url = shown(url);
        return Err(Error::new(
            ErrorCode::HttpError,
            format!(
                "package {}: {url} answered HTTP {status}{}",
                spec.display(),
                if status == 404 {
                    " (no such package or version)"
                } else {
                    ""
                }
            ),
        )
        .with("package", spec.display())
        .with("status", status));
    }
    Ok(response)
}

fn too_large(spec: &PackageSpec, url: &str, limit: u64) -> Error {
    let url = shown(url);
    Error::new(
        ErrorCode::MessageTooLarge,
        format!(
            "package {}: {url} is larger than the {limit} bytes accepted",
            spec.display()
        ),
    )
    .with("package", spec.display())
    .with("limit", limit)
}

/// A JSON document from the registry.
pub(super) async fn json(client: &reqwest::Client, spec: &PackageSpec, url: &str) -> Result<Value> {
    let mut response = get(client, spec, url).await?;
    let limit = limits::PACKAGE_METADATA_MAX_BYTES;
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unreachable(spec, url, &e))?
    {
        if body.len() as u64 + chunk.len() as u64 > limit {
            return Err(too_large(spec, url, limit));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| {
        Error::new(
            ErrorCode::ProtocolError,
            format!(
                "package {}: {} is not JSON: {e}",
                spec.display(),
                shown(url)
            ),
        )
        .with("package", spec.display())
    })
}

/// A JSON document from the registry, or `None` when it answers 404 (PyPI's Integrity API for a
/// file that has no provenance).
pub(super) async fn json_if_found(
    client: &reqwest::Client,
    spec: &PackageSpec,
    url: &str,
) -> Result<Option<Value>> {
    match json(client, spec, url).await {
        Ok(v) => Ok(Some(v)),
        Err(e)
            if e.code == ErrorCode::HttpError && e.details.get("status") == Some(&404.into()) =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The archive at `url` written to `path`; its hash in the pin's notation.
pub(super) async fn archive(
    client: &reqwest::Client,
    spec: &PackageSpec,
    url: &str,
    path: &Path,
) -> Result<String> {
    let mut response = get(client, spec, url).await?;
    let limit = limits::PACKAGE_ARCHIVE_MAX_BYTES;
    let io = |e: std::io::Error| {
        Error::internal(format!(
            "package {}: cannot write {}: {e}",
            spec.display(),
            path.display()
        ))
    };
    let mut file = tokio::fs::File::create(path).await.map_err(io)?;
    let mut hasher = Hasher::for_registry(spec.registry);
    let mut size = 0u64;
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| unreachable(spec, url, &e))?
    {
        size += chunk.len() as u64;
        if size > limit {
            return Err(too_large(spec, url, limit));
        }
        hasher.update(&chunk);
        file.write_all(&chunk).await.map_err(io)?;
    }
    file.flush().await.map_err(io)?;
    Ok(hasher.finish())
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_of_a_registry_url_are_never_shown() {
        assert_eq!(
            super::shown("https://me:s3cret@registry.example/a/1.0.0?token=t"),
            "https://registry.example/a/1.0.0"
        );
    }
}
