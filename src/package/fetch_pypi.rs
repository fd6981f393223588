//! A PyPI package's first fetch: the index's JSON page of the project (PEP 691 Simple API, at
//! `PIP_INDEX_URL` or https://pypi.org/simple, the index pip itself uses), the one file of the
//! exact release whose sha256 is the pin (a wheel or an sdist), downloaded and checked before
//! anything of it is unpacked, its PEP 740 provenance verified when PyPI has some (the Integrity
//! API beside the index), then a virtual environment in the package's folder and `pip
//! install` of that verified file. pip resolves the dependencies from its configured index; its
//! install report (every distribution installed, with its hashes) is the lock whose hash the
//! record keeps.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::cache::tool_name;
use super::download;
use super::integrity::{mismatch, sha256_of};
use super::provenance;
use super::record::Record;
use crate::config::{PackageRegistry, PackageSpec};
use crate::error::{Error, ErrorCode, Result};
use crate::process;

const REPORT: &str = "install-report.json";

/// The Simple API's base URL, without a trailing `/`.
pub(super) fn index() -> String {
    ["PIP_INDEX_URL", "pip_index_url"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(|| "https://pypi.org/simple".to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// A project name as file names spell it (PEP 503 normalised, `-` as `_`).
fn file_stem(name: &str) -> String {
    name.to_ascii_lowercase().replace(['-', '.'], "_")
}

/// Whether `file` is a distribution of `name` at exactly `version`.
fn of_release(file: &str, name: &str, version: &str) -> bool {
    let prefix = format!("{}-{version}", file_stem(name));
    let lower = file.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix(&prefix) else {
        return false;
    };
    (rest.starts_with('-') && rest.ends_with(".whl")) || matches!(rest, ".tar.gz" | ".zip")
}

/// Every file of the project on the index, `(file name, url, sha256)`, and the latest release.
pub(super) async fn project_files(
    client: &reqwest::Client,
    spec: &PackageSpec,
) -> Result<(Vec<(String, String, String)>, Option<String>)> {
    let url = format!("{}/{}/", index(), spec.name);
    let document = download::json(client, spec, &url).await?;
    let files = document["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let file = f["url"].as_str()?;
            // A relative URL is relative to the project page.
            let absolute = reqwest::Url::parse(&url).ok()?.join(file).ok()?;
            Some((
                f["filename"].as_str()?.to_owned(),
                absolute.to_string(),
                f["hashes"]["sha256"].as_str()?.to_ascii_lowercase(),
            ))
        })
        .collect();
    // The release of the newest upload (ISO 8601 times compare as text); yanked files aside.
    let latest = document["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["yanked"] == false || f["yanked"].is_null())
        .filter_map(|f| Some((f["upload-time"].as_str()?, f["filename"].as_str()?)))
        .max()
        .and_then(|(_, file)| version_of(file, &spec.name));
    Ok((files, latest))
}

/// The version in a distribution's file name.
fn version_of(file: &str, name: &str) -> Option<String> {
    let rest = file
        .to_ascii_lowercase()
        .strip_prefix(&format!("{}-", file_stem(name)))?
        .to_owned();
    let end = rest
        .find('-')
        .or_else(|| rest.find(".tar.gz"))
        .or_else(|| rest.find(".zip"))?;
    Some(rest[..end].to_owned())
}

/// `(file name, url, sha256)` of every file of the exact release.
pub(super) async fn release_files(
    client: &reqwest::Client,
    spec: &PackageSpec,
) -> Result<Vec<(String, String, String)>> {
    let (files, _) = project_files(client, spec).await?;
    Ok(files
        .into_iter()
        .filter(|(file, _, _)| of_release(file, &spec.name, &spec.version))
        .collect())
}

fn install_failed(spec: &PackageSpec, why: &str) -> Error {
    Error::new(
        ErrorCode::ServerUnavailable,
        format!("package {}: pip install failed: {why}", spec.display()),
    )
    .with("package", spec.display())
}

/// Fetches, verifies and installs `spec` into `folder` (which exists and is empty).
pub(super) async fn fetch(server: &str, spec: &PackageSpec, folder: &Path) -> Result<Record> {
    let client = download::client()?;
    let (name, archive) = download_pinned(server, spec, folder, &client).await?;
    // PEP 740 provenance of this very file, when PyPI has some (and required when pinned).
    let publisher = provenance::pypi(server, &client, spec, &index(), &name).await?;
    provenance::matches_pin(server, spec, publisher.as_ref())?;
    let lock_sha256 = install(spec, folder, &archive).await?;
    let entry = installed_program(spec, folder)?;
    Ok(Record {
        package: spec.display(),
        pin: spec.pin.clone(),
        archive: name,
        lock_file: REPORT.to_owned(),
        lock_sha256,
        runner: None,
        entry: entry.to_string_lossy().into_owned(),
        publisher,
    })
}

/// The release's file whose sha256 is the pin, downloaded into `folder` and its hash checked:
/// its file name and its path.
async fn download_pinned(
    server: &str,
    spec: &PackageSpec,
    folder: &Path,
    client: &reqwest::Client,
) -> Result<(String, PathBuf)> {
    let files = release_files(client, spec).await?;
    let Some((name, url, _)) = files.iter().find(|(_, _, sha)| *sha == spec.pin) else {
        let offered: Vec<String> = files
            .iter()
            .map(|(name, _, sha)| format!("{name} {sha}"))
            .collect();
        let offered = offered.join(", ");
        return Err(mismatch(
            server,
            spec,
            "no file of the registry's release",
            Some(offered.as_str()).filter(|s| !s.is_empty()),
        ));
    };
    // A file name from the registry becomes one path component inside the folder.
    if name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(install_failed(
            spec,
            &format!("unusable file name `{name}`"),
        ));
    }
    let archive = folder.join(name);
    let actual = download::archive(client, spec, url, &archive).await?;
    if actual != spec.pin {
        let _ = tokio::fs::remove_file(&archive).await;
        return Err(mismatch(
            server,
            spec,
            "the downloaded archive",
            Some(&actual),
        ));
    }
    Ok((name.clone(), archive))
}

/// A virtual environment in `folder` and `pip install` of the verified `archive` into it: the
/// sha256 of pip's install report (the lock).
async fn install(spec: &PackageSpec, folder: &Path, archive: &Path) -> Result<String> {
    let venv = folder.join("venv");
    let python = tool_name(PackageRegistry::Pypi);
    run(
        spec,
        OsStr::new(python),
        &[OsStr::new("-m"), OsStr::new("venv"), venv.as_os_str()],
    )
    .await?;
    let report = folder.join(REPORT);
    let report_arg = format!("--report={}", report.display());
    run(
        spec,
        venv_program(&venv, "python").as_os_str(),
        &[
            OsStr::new("-m"),
            OsStr::new("pip"),
            OsStr::new("install"),
            OsStr::new("--no-input"),
            OsStr::new("--disable-pip-version-check"),
            OsStr::new(&report_arg),
            archive.as_os_str(),
        ],
    )
    .await?;
    sha256_of(&report)
        .await
        .map_err(|e| install_failed(spec, &format!("no install report: {e}")))
}

/// The program the server runs, relative to `folder`: the package's console script (`bin`, else
/// its name), which the install must have made.
fn installed_program(spec: &PackageSpec, folder: &Path) -> Result<PathBuf> {
    let program = spec.bin.clone().unwrap_or_else(|| spec.name.clone());
    let entry = venv_program(Path::new("venv"), &program);
    if !folder.join(&entry).exists() {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "config.package.bin: package {} installed no program `{program}`; name its console script with `bin`",
                spec.display()
            ),
        )
        .with("field", "package.bin"));
    }
    Ok(entry)
}

/// A program of the virtual environment at `venv`.
fn venv_program(venv: &Path, name: &str) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join(format!("{name}.exe"))
    } else {
        venv.join("bin").join(name)
    }
}

async fn run(spec: &PackageSpec, program: &OsStr, args: &[&OsStr]) -> Result<()> {
    let run = process::package_tool(program, args, &[])
        .await
        .map_err(|e| {
            install_failed(
                spec,
                &format!("cannot run `{}`: {e}", program.to_string_lossy()),
            )
        })?;
    if run.success {
        Ok(())
    } else {
        Err(install_failed(spec, run.stderr.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::of_release;

    #[test]
    fn files_of_one_release() {
        assert!(of_release(
            "mcp_server_time-0.6.1-py3-none-any.whl",
            "mcp-server-time",
            "0.6.1"
        ));
        assert!(of_release(
            "mcp_server_time-0.6.1.tar.gz",
            "mcp-server-time",
            "0.6.1"
        ));
        assert!(!of_release(
            "mcp_server_time-0.6.10-py3-none-any.whl",
            "mcp-server-time",
            "0.6.1"
        ));
        assert!(!of_release(
            "mcp_server_time_x-0.6.1.tar.gz",
            "mcp-server-time",
            "0.6.1"
        ));
    }
}
