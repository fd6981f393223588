//! The `package` object of a stdio server's config: a server given as a registry package pinned to
//! one exact version and the hash of its archive, instead of a `command`.
//!
//! - `{"npm": "@scope/name@1.2.3", "integrity": "sha512-…"}`: npm's SRI string of the tarball;
//! - `{"pypi": "name==1.2.3", "sha256": "…"}`: the sha256 (hex) of the wheel or sdist;
//! - `bin` (optional): the program of the package to run (npm: a key of its `bin`; PyPI: a console
//!   script), when the package has several or it is not named after the package.
//! - `publisher` (optional): who must have published it, as its verified provenance names them
//!   (`{"repository": "https://github.com/o/r", "workflow"?, "issuer"?, "commit"?}`); given, the
//!   package must carry Sigstore provenance that verifies and names the same.
//!
//! Only the shape is checked here; fetching, verifying and caching are `crate::package`'s.

use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};

use super::invalid::invalid;
use super::strict::{self, Problem};
use crate::error::Result;

/// Which registry a package comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackageRegistry {
    Npm,
    Pypi,
}

impl PackageRegistry {
    /// The config key naming it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Pypi => "pypi",
        }
    }
}

/// A validated `package` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageSpec {
    pub registry: PackageRegistry,
    /// The package's name as the registry spells it (`@scope/name`, `mcp-server-time`).
    pub name: String,
    /// One exact version: never a range or a tag.
    pub version: String,
    /// npm: `sha512-<base64>` (the tarball's SRI string); PyPI: the archive's sha256 in lowercase hex.
    pub pin: String,
    /// The program of the package to run; `None`: the only one, or the one named after the package.
    pub bin: Option<String>,
    /// Who must have published it (its verified provenance must name them); `None`: provenance is
    /// read when there is some, and not required.
    pub publisher: Option<PinnedPublisher>,
}

/// The `publisher` of a `package` block: each field given must equal what the package's verified
/// provenance says (its Fulcio certificate's claims).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinnedPublisher {
    #[serde(default, deserialize_with = "strict::present")]
    pub repository: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    pub workflow: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    pub issuer: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    pub commit: Option<String>,
}

impl PinnedPublisher {
    /// The fields given, as the config spells them.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::Map::new();
        for (key, value) in [
            ("repository", &self.repository),
            ("workflow", &self.workflow),
            ("issuer", &self.issuer),
            ("commit", &self.commit),
        ] {
            if let Some(v) = value {
                out.insert(key.to_owned(), Value::from(v.as_str()));
            }
        }
        Value::Object(out)
    }
}

impl PackageSpec {
    /// `npm:@scope/name@1.2.3` or `pypi:name==1.2.3`: how status and errors name it.
    pub fn display(&self) -> String {
        match self.registry {
            PackageRegistry::Npm => format!("npm:{}@{}", self.name, self.version),
            PackageRegistry::Pypi => format!("pypi:{}=={}", self.name, self.version),
        }
    }

    /// What the launch digest binds (and the trust request shows): registry, name, version, the
    /// pin, the program and the publisher it must come from.
    pub fn digest_input(&self) -> Value {
        json!({
            "registry": self.registry.as_str(),
            "name": self.name,
            "version": self.version,
            "pin": self.pin,
            "bin": self.bin,
            "publisher": self.publisher.as_ref().map(PinnedPublisher::to_json),
        })
    }
}

#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawPackage {
    #[serde(default, deserialize_with = "strict::present")]
    npm: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    pypi: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    integrity: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    sha256: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    bin: Option<String>,
    #[serde(default, deserialize_with = "strict::present")]
    publisher: Option<Value>,
}

const EXPECTED: &str =
    "must be an object: {\"npm\": \"name@version\", \"integrity\": \"sha512-…\"} \
     or {\"pypi\": \"name==version\", \"sha256\": \"<hex>\"}, with an optional \"bin\"";

/// Parses and validates the `package` object; errors name `package.<field>`.
pub(super) fn parse_package(value: &Value) -> Result<PackageSpec> {
    let raw = strict::read_at::<RawPackage>(value, Some("package"))
        .map_err(|p| match p {
            Problem::Invalid(e) => e,
            Problem::WrongType { at, .. } => invalid(&format!("package.{at}"), "must be a string"),
        })?
        .value;
    let bin = match raw.bin {
        Some(b) if b.trim().is_empty() || b.contains(['/', '\\']) => {
            return Err(invalid(
                "package.bin",
                "must be a program's name (no directory)",
            ))
        }
        other => other,
    };
    let publisher = raw.publisher.as_ref().map(parse_publisher).transpose()?;
    match (raw.npm, raw.pypi) {
        (Some(spec), None) => {
            if raw.sha256.is_some() {
                return Err(invalid(
                    "package.sha256",
                    "is PyPI's pin; an npm package is pinned by `integrity` (sha512-…)",
                ));
            }
            let (name, version) = split_npm(&spec)?;
            let Some(integrity) = raw.integrity else {
                return Err(invalid(
                    "package.integrity",
                    "is required: the tarball's `sha512-…` integrity (`mcp-sidecar pin` prints it)",
                ));
            };
            Ok(PackageSpec {
                registry: PackageRegistry::Npm,
                name,
                version,
                pin: checked_integrity(&integrity)?,
                bin,
                publisher,
            })
        }
        (None, Some(spec)) => {
            if raw.integrity.is_some() {
                return Err(invalid(
                    "package.integrity",
                    "is npm's pin; a PyPI package is pinned by `sha256`",
                ));
            }
            let (name, version) = split_pypi(&spec)?;
            let Some(sha256) = raw.sha256 else {
                return Err(invalid(
                    "package.sha256",
                    "is required: the archive's sha256 (`mcp-sidecar pin` prints it)",
                ));
            };
            Ok(PackageSpec {
                registry: PackageRegistry::Pypi,
                name,
                version,
                pin: checked_sha256(&sha256)?,
                bin,
                publisher,
            })
        }
        _ => Err(invalid("package", EXPECTED)),
    }
}

/// `package.publisher`: an object of strings, naming at least the repository.
fn parse_publisher(value: &Value) -> Result<PinnedPublisher> {
    let publisher = strict::read_at::<PinnedPublisher>(value, Some("package.publisher"))
        .map_err(|p| match p {
            Problem::Invalid(e) => e,
            Problem::WrongType { at, .. } => {
                invalid(&format!("package.publisher.{at}"), "must be a string")
            }
        })?
        .value;
    match &publisher.repository {
        Some(r) if !r.trim().is_empty() => Ok(publisher),
        _ => Err(invalid(
            "package.publisher.repository",
            "is required: the source repository the provenance must name \
             (`mcp-sidecar pin` prints it)",
        )),
    }
}

/// Whether a version is one exact version (`1.2.3`, `2025.9.25`, `1.0.0-rc.1`), not a range, a tag
/// or a wildcard.
fn exact_version(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
}

fn split_npm(spec: &str) -> Result<(String, String)> {
    // The version's `@` is the last one: a scoped name starts with `@` too.
    let at = spec.rfind('@').filter(|&i| i > 0);
    let (name, version) = match at {
        Some(i) => (&spec[..i], &spec[i + 1..]),
        None => (spec, ""),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 214
        && name.chars().all(|c| {
            c.is_ascii_lowercase()
                || c.is_ascii_digit()
                || matches!(c, '@' | '/' | '-' | '.' | '_' | '~')
        });
    if !name_ok {
        return Err(invalid(
            "package.npm",
            format!("`{spec}`: not an npm package name (lowercase, `@scope/name`)"),
        ));
    }
    if !exact_version(version) {
        return Err(invalid(
            "package.npm",
            format!(
                "`{spec}`: must name one exact version, `{name}@1.2.3` (no range, tag or `latest`)"
            ),
        ));
    }
    Ok((name.to_owned(), version.to_owned()))
}

fn split_pypi(spec: &str) -> Result<(String, String)> {
    let (name, version) = spec.split_once("==").unwrap_or((spec, ""));
    let name_ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !name_ok {
        return Err(invalid(
            "package.pypi",
            format!("`{spec}`: not a PyPI project name"),
        ));
    }
    if !exact_version(version) {
        return Err(invalid(
            "package.pypi",
            format!("`{spec}`: must name one exact version, `{name}==1.2.3`"),
        ));
    }
    Ok((name.to_owned(), version.to_owned()))
}

/// An npm SRI string of sha512 (`sha512-` and 64 bytes in base64).
fn checked_integrity(value: &str) -> Result<String> {
    let decoded = value
        .strip_prefix("sha512-")
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    match decoded {
        Some(bytes) if bytes.len() == 64 => Ok(value.to_owned()),
        _ => Err(invalid(
            "package.integrity",
            "must be an SRI sha512 string, `sha512-` and 88 base64 characters (npm's `dist.integrity`)",
        )),
    }
}

/// A sha256 in hex (64 digits, optionally after `sha256:`), lowercased.
fn checked_sha256(value: &str) -> Result<String> {
    let hex = value.strip_prefix("sha256:").unwrap_or(value);
    if hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(hex.to_ascii_lowercase())
    } else {
        Err(invalid(
            "package.sha256",
            "must be a sha256 in hex (64 digits)",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRI: &str = "sha512-6fdvSeJm8op2Cx736ck9MO8SdbFR+Of04KC/uchXnxvCTI68dJCRaxWuUBf8cv5RKNqGK98vHjRAmadapfnuRg==";

    #[test]
    fn npm_scoped_name_and_exact_version() {
        let p = parse_package(
            &json!({"npm": "@modelcontextprotocol/server-memory@2025.9.25", "integrity": SRI}),
        )
        .unwrap();
        assert_eq!(p.name, "@modelcontextprotocol/server-memory");
        assert_eq!(p.version, "2025.9.25");
        assert_eq!(p.registry, PackageRegistry::Npm);
    }

    #[test]
    fn ranges_tags_and_missing_pins_are_refused() {
        for bad in [
            json!({"npm": "@scope/x", "integrity": SRI}),
            json!({"npm": "x@latest", "integrity": SRI}),
            json!({"npm": "x@^1.2.0", "integrity": SRI}),
            json!({"npm": "x@1.2.3"}),
            json!({"npm": "x@1.2.3", "integrity": "sha1-abc"}),
            json!({"pypi": "x>=1", "sha256": "0".repeat(64)}),
            json!({"pypi": "x==1.0"}),
            json!({"pypi": "x==1.0", "sha256": "abc"}),
            json!({"npm": "x@1", "pypi": "x==1", "integrity": SRI}),
            json!({"npm": "x@1", "integrity": SRI, "bin": "../evil"}),
            json!({"npm": "x@1", "integrity": SRI, "version": "1"}),
        ] {
            let e = parse_package(&bad).unwrap_err();
            assert!(e.message.contains("package"), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn a_publisher_names_its_repository_and_strings_only() {
        let p = parse_package(&json!({"npm": "x@1.0.0", "integrity": SRI,
            "publisher": {"repository": "https://github.com/o/r", "workflow": "w"}}))
        .unwrap();
        let publisher = p.publisher.unwrap();
        assert_eq!(
            publisher.repository.as_deref(),
            Some("https://github.com/o/r")
        );
        assert_eq!(
            publisher.to_json(),
            json!({"repository": "https://github.com/o/r", "workflow": "w"})
        );
        for (bad, field) in [
            (json!({"workflow": "w"}), "package.publisher.repository"),
            (json!({"repository": 1}), "package.publisher.repository"),
            (json!({"repository": "r", "repo": "r"}), "package.publisher"),
            (json!("r"), "package.publisher"),
        ] {
            let e = parse_package(&json!({"npm": "x@1.0.0", "integrity": SRI, "publisher": bad}))
                .unwrap_err();
            assert!(e.message.contains(field), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn pypi_sha256_is_lowercased() {
        let p = parse_package(&json!({"pypi": "mcp-server-time==0.6.1", "sha256": format!("sha256:{}", "AB".repeat(32))})).unwrap();
        assert_eq!(p.pin, "ab".repeat(32));
        assert_eq!(p.display(), "pypi:mcp-server-time==0.6.1");
    }
}
