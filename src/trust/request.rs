//! A trust request: everything a host shows before approving a server — every field the launch
//! digest binds, secret values masked — with warnings for risky patterns, and the digest its
//! approval must quote back (`servers/add {…, trust: digest}`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use super::digest::{self, keyed};
use super::risk;
use super::secrets::{looks_secret, url_secrets, Secrets};
use crate::config::source::Source;
use crate::config::{shell_quote, Extras, ServerSpec};

/// A parsed launch config (the spec and the extras the server is built from), as the gate sees it.
pub struct Subject<'a> {
    pub spec: &'a ServerSpec,
    pub extras: &'a Extras,
}

impl<'a> Subject<'a> {
    pub fn new(spec: &'a ServerSpec, extras: &'a Extras) -> Self {
        Self { spec, extras }
    }

    pub fn digest(&self) -> String {
        digest::digest(self.spec, self.extras)
    }

    /// Every secret of the config (see [`Secrets::for_server`]): what the request masks.
    pub fn secrets(&self) -> Secrets {
        Secrets::for_server(self.spec, self.extras, &crate::config::expand::process_env)
    }

    /// `{commandLine, command, args, cwd, envNames, inheritEnv, envFiles, transport, url?,
    /// headerNames?, secretNames, includeTools, excludeTools, expectTools, permissions,
    /// permissionMetaKey, resourcesAsTools?, pinTools?, sandbox?, sandboxLevel?, package?, source, warnings, digest}`; secret values masked, nothing truncated.
    pub fn to_json(&self, source: Source, plugin_root: Option<&Path>) -> Value {
        let (spec, extras) = (self.spec, self.extras);
        let secrets = self.secrets();
        let line: Vec<String> = std::iter::once(spec.command.as_str())
            .chain(spec.args.iter().map(String::as_str))
            .map(shell_quote)
            .collect();
        let cwd = spec.cwd.as_ref().map(|p| p.to_string_lossy().into_owned());
        let url = spec.remote.as_ref().map(|r| r.url.as_str());
        let mut warnings =
            risk::warnings(&spec.command, &spec.args, plugin_root, spec.cwd.as_deref());
        warnings.extend(risk::address_warnings(
            url,
            &spec.args,
            spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        ));
        warnings.extend(risk::env_file_warnings(&extras.env_files));
        let env_files: Vec<Value> = extras
            .env_files
            .iter()
            .map(|f| {
                json!({
                    "path": secrets.mask(&f.path),
                    "names": f.names,
                    // Keyed like any secret: a plain digest of a small file could be guessed.
                    "contents": keyed(&f.sha256),
                })
            })
            .collect();
        let sorted = |items: &[String]| -> Vec<String> {
            items
                .iter()
                .cloned()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect()
        };
        let mut out = json!({
            "commandLine": secrets.mask(&line.join(" ")),
            "command": secrets.mask(&spec.command),
            "args": spec.args.iter().map(|a| secrets.mask(a)).collect::<Vec<_>>(),
            "cwd": cwd.map(|c| secrets.mask(&c)),
            "envNames": spec.env.keys().collect::<Vec<_>>(),
            "inheritEnv": sorted(&spec.inherit_env),
            "envFiles": env_files,
            "transport": digest::transport(spec),
            "secretNames": digest::secret_names(spec, extras),
            "includeTools": sorted(&extras.include_tools),
            "excludeTools": sorted(&extras.exclude_tools),
            "expectTools": extras.expect_tools.as_deref().map(sorted),
            "permissions": extras.permissions.as_deref().map(sorted),
            "permissionMetaKey": extras.permission_meta_key,
            "maskSecretsInResults": extras.mask_secrets_in_results,
            "source": source.as_str(),
            "warnings": warnings,
            "digest": self.digest(),
        });
        self.add_optional_fields(&mut out, &secrets, url);
        out
    }

    /// The fields of [`Self::to_json`] a config has only when it gives them: `resourcesAsTools`,
    /// `pinTools`, `sandbox` (and what this host enforces of it), `oauth`, `package`, a remote
    /// server's `url` and `headerNames`.
    fn add_optional_fields(&self, out: &mut Value, secrets: &Secrets, url: Option<&str>) {
        let (spec, extras) = (self.spec, self.extras);
        // Bound when given, like the digest: what the model is shown of the server.
        if let Some(on) = extras.resources_as_tools {
            out["resourcesAsTools"] = Value::Bool(on);
        }
        if let Some(on) = extras.pin_tools {
            out["pinTools"] = Value::Bool(on);
        }
        // What confines the server, as the digest binds it (paths masked like any other text).
        if let Some(sandbox) = &spec.sandbox {
            let mut shown = sandbox.to_json();
            secrets.mask_json(&mut shown);
            out["sandbox"] = shown;
            // What this host would enforce of it (not bound: the same approval holds on a host
            // that enforces more or less; a start refuses what is missing unless allowWeaker).
            out["sandboxLevel"] = crate::sandbox::probe(sandbox).to_json();
        }
        if let Some(oauth) = spec.remote.as_ref().and_then(|r| r.oauth.as_ref()) {
            let mut shown = digest::oauth_input(oauth);
            if oauth.client_secret.is_some() {
                shown["clientSecret"] = Value::from(crate::logging::MASK);
            }
            out["oauth"] = shown;
        }
        if let Some(package) = &spec.package {
            // The block as bound (the pinned publisher included), and what the fetch will verify
            // of it: the trust request comes before anything is fetched.
            let mut shown = package.digest_input();
            shown["verification"] = Value::from(if package.publisher.is_some() {
                PROVENANCE_REQUIRED
            } else {
                PROVENANCE_READ
            });
            out["package"] = shown;
        }
        if let Some(url) = url {
            out["url"] = Value::from(secrets.mask(url));
            out["headerNames"] = json!(digest::headers(spec)
                .iter()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>());
        }
    }
}

/// What the first fetch verifies of a package that pins its publisher.
pub const PROVENANCE_REQUIRED: &str = "archive hash; Sigstore provenance required: its signature, \
     Fulcio certificate chain and Rekor timestamp verified offline, its subject this archive, its \
     certificate naming this publisher";
/// What the first fetch verifies of a package that does not.
pub const PROVENANCE_READ: &str = "archive hash; Sigstore provenance verified when the registry \
     has some (its publisher then kept in the package's record), not required";

/// The secret values of a config that has not been parsed (yet, or at all): to mask the message of
/// the error that refuses it. `extras`: its marks (names) and extra secret values.
pub fn raw_secrets(config: &Value, extras: &Extras) -> Secrets {
    let env = config
        .get("env")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)));
    let mut marked = extras.secret_names.clone();
    marked.extend(marked_headers(config));
    // An `oauth` object's client secret, in either spelling.
    let oauth_secret = config.get("oauth").and_then(|o| {
        ["clientSecret", "client_secret"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
    });
    // The URL's password and query values, when it parses (an invalid URL's error does not quote it).
    let url_values = config
        .get("url")
        .and_then(Value::as_str)
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| url_secrets(&u))
        .unwrap_or_default();
    Secrets::from_values(
        env.chain(raw_headers(config))
            .filter(|(k, _)| marked.contains(*k) || looks_secret(k))
            .map(|(_, v)| v.to_owned())
            .chain(extras.secret_values.iter().cloned())
            .chain(oauth_secret.map(str::to_owned))
            .chain(url_values),
    )
}

/// `(name, value)` of every header, given as a string or as `{value, secret}`.
fn raw_headers(config: &Value) -> Vec<(&str, &str)> {
    config
        .get("headers")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    let value = match v {
                        Value::String(s) => s.as_str(),
                        Value::Object(o) => o.get("value")?.as_str()?,
                        _ => return None,
                    };
                    Some((k.as_str(), value))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Names of headers given as `{value, secret: true}`.
fn marked_headers(config: &Value) -> Vec<String> {
    config
        .get("headers")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(_, v)| v.get("secret") == Some(&Value::Bool(true)))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::extras;

    fn request(config: Value) -> (Value, String) {
        let (rest, extras) = extras::split(&config).unwrap();
        let spec = ServerSpec::from_json(&rest).unwrap();
        let subject = Subject::new(&spec, &extras);
        (subject.to_json(Source::Host, None), subject.digest())
    }

    #[test]
    fn headers_in_both_forms_are_read_and_masked() {
        let config = json!({
            "url": "https://h/mcp",
            "headers": {"X-Custom": {"value": "marked-secret-value", "secret": true}, "Authorization": "Bearer tok-abcdef", "X-Trace": "t1"}
        });
        let (rest, extras) = extras::split(&config).unwrap();
        let spec = ServerSpec::from_json(&rest).unwrap();
        let subject = Subject::new(&spec, &extras);
        assert!(digest::secret_names(&spec, &extras).contains("X-Custom"));
        let secrets = subject.secrets();
        assert_eq!(
            secrets.mask("marked-secret-value tok-abcdef t1"),
            "*** *** t1"
        );
        assert_eq!(
            raw_secrets(&rest, &extras).mask("marked-secret-value tok-abcdef t1"),
            "*** *** t1"
        );
        let (request, digest) = request(config.clone());
        let text = request.to_string();
        assert!(
            !text.contains("marked-secret-value") && !text.contains("tok-abcdef"),
            "{text}"
        );
        assert_eq!(
            request["headerNames"],
            json!(["Authorization", "X-Custom", "X-Trace"])
        );
        assert_eq!(request["secretNames"], json!(["Authorization", "X-Custom"]));
        assert_eq!(request["transport"], "auto");
        // The value of an object-form header is part of the digest.
        let mut changed = config.clone();
        changed["headers"]["X-Custom"]["value"] = json!("another-secret-value");
        assert_ne!(self::request(changed).1, digest);
    }

    /// A package's pinned publisher is shown with what the fetch verifies, and bound: the same pin
    /// with another publisher is another digest.
    #[test]
    fn a_package_shows_its_pinned_publisher_and_what_is_verified() {
        let sri = format!("sha512-{}==", "A".repeat(86));
        let plain = json!({"package": {"npm": "x@1.0.0", "integrity": sri}});
        let (r, plain_digest) = request(plain.clone());
        assert_eq!(r["package"]["publisher"], Value::Null, "{r}");
        assert_eq!(r["package"]["verification"], PROVENANCE_READ);
        let mut pinned = plain.clone();
        pinned["package"]["publisher"] = json!({
            "repository": "https://github.com/o/r",
            "workflow": "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.0.0",
            "commit": "0123456789abcdef0123456789abcdef01234567"
        });
        let (r, pinned_digest) = request(pinned.clone());
        assert_eq!(
            r["package"]["publisher"], pinned["package"]["publisher"],
            "{r}"
        );
        assert_eq!(r["package"]["verification"], PROVENANCE_REQUIRED);
        assert_ne!(pinned_digest, plain_digest);
        let mut other = pinned;
        other["package"]["publisher"]["repository"] = json!("https://github.com/someone/else");
        assert_ne!(request(other).1, pinned_digest);
    }

    /// Every bound field is shown, in either spelling, and the digest is the same for both.
    #[test]
    fn lists_every_bound_field() {
        let camel = json!({
            "command": "srv", "args": ["--url=http://169.254.169.254/"], "env": {"TOKEN": "tok-123456"},
            "inheritEnv": ["SOME_HOST_SECRET", "HOME"], "cwd": "/srv",
            "includeTools": ["b*", "a"], "excludeTools": ["x"], "expectTools": ["a"],
            "permissions": ["read"], "permissionMetaKey": "perm", "secretEnv": ["LEVEL"],
            "envFiles": [{"path": "/elsewhere/.env", "configDir": "/ws", "names": ["K"], "sha256": "sha256:00"}],
            "sandbox": {"write": ["/srv/data"], "limits": {"memoryMb": 256}, "allowWeaker": true},
        });
        let snake = json!({
            "command": "srv", "args": ["--url=http://169.254.169.254/"], "env": {"TOKEN": "tok-123456"},
            "inherit_env": ["SOME_HOST_SECRET", "HOME"], "cwd": "/srv",
            "include_tools": ["b*", "a"], "exclude_tools": ["x"], "expect_tools": ["a"],
            "permissions": ["read"], "permission_meta_key": "perm", "secret_env": ["LEVEL"],
            "env_files": [{"path": "/elsewhere/.env", "configDir": "/ws", "names": ["K"], "sha256": "sha256:00"}],
            "sandbox": {"write": ["/srv/data"], "limits": {"memory_mb": 256}, "allow_weaker": true},
        });
        let (r, d) = request(camel);
        assert_eq!(request(snake), (r.clone(), d));
        assert_eq!(r["inheritEnv"], json!(["HOME", "SOME_HOST_SECRET"]));
        assert_eq!(r["includeTools"], json!(["a", "b*"]));
        assert_eq!(r["excludeTools"], json!(["x"]));
        assert_eq!(r["expectTools"], json!(["a"]));
        assert_eq!(r["permissions"], json!(["read"]));
        assert_eq!(r["permissionMetaKey"], "perm");
        assert_eq!(r["secretNames"], json!(["LEVEL"]));
        assert_eq!(r["transport"], "stdio");
        assert_eq!(r["sandbox"]["preset"], "strict");
        assert_eq!(r["sandbox"]["write"], json!(["/srv/data"]));
        assert_eq!(r["sandbox"]["limits"]["memoryMb"], 256);
        assert_eq!(r["sandbox"]["allowWeaker"], true);
        assert!(
            r["sandboxLevel"]["enforced"].is_array(),
            "{}",
            r["sandboxLevel"]
        );
        assert_eq!(r["envFiles"][0]["path"], "/elsewhere/.env");
        assert_eq!(r["envFiles"][0]["names"], json!(["K"]));
        assert!(r["envFiles"][0]["contents"]
            .as_str()
            .unwrap()
            .starts_with("hmac-sha256:"));
        let warnings: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            warnings.iter().any(|w| w.contains("cloud-metadata"))
                && warnings
                    .iter()
                    .any(|w| w.contains("outside the config's folder")),
            "{warnings:?}"
        );
        assert!(!r.to_string().contains("tok-123456"));
    }
}
