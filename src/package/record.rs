//! What a fetched package left in its cache folder (`record.json`, written last: a folder without
//! one is an unfinished fetch): the pin it was verified against, the archive, the lock file of its
//! dependency tree as first resolved and that file's hash, the program to run, and what provenance
//! said of its publisher.

use serde::{Deserialize, Serialize};

/// The file name of the record inside a package's cache folder.
pub(super) const RECORD_FILE: &str = "record.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Record {
    /// `npm:name@version` / `pypi:name==version`.
    pub package: String,
    /// The pin the archive matched.
    pub pin: String,
    /// The verified archive, a file name inside the folder.
    pub archive: String,
    /// The dependency tree as resolved at the first fetch (npm's `package-lock.json`, pip's
    /// install report), a path inside the folder, and its sha256: checked at every start.
    pub lock_file: String,
    pub lock_sha256: String,
    /// A program found on PATH that runs `entry` (`node`), or none when `entry` is the program.
    pub runner: Option<String>,
    /// The program (or script) to run, a path inside the folder.
    pub entry: String,
    /// What the registry's provenance claims of the publisher, and how far it was checked.
    pub publisher: Option<Publisher>,
}

/// The publisher a package's provenance names: the Fulcio certificate's OIDC claims when its
/// Sigstore bundle verified, else what the statement claims.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Publisher {
    /// The OIDC issuer that vouched for the build (`https://token.actions.githubusercontent.com`).
    #[serde(default)]
    pub issuer: Option<String>,
    /// The source repository (`https://github.com/owner/repo`).
    pub repository: Option<String>,
    /// The workflow that published it (`…/.github/workflows/release.yml@refs/tags/v1`).
    pub workflow: Option<String>,
    /// The source commit it was built from.
    #[serde(default)]
    pub commit: Option<String>,
    /// What was checked (docs/packages.md): the Sigstore bundle and the subject digest, or why not.
    pub verified: String,
}
