//! The launch digest: sha256 over a canonical JSON (version 2) of everything that changes what is
//! launched, what it receives and what the model is exposed to — transport, command, args, env,
//! inherited variable names, env files (path, names, contents), cwd, URL, headers, secret marks,
//! the tools policy, and when given `resourcesAsTools`, `pinTools` and `sandbox` — read from the *parsed* config ([`ServerSpec`] + [`Extras`]), so every spelling
//! of a field gives the same digest. Secret values (and env files' contents) appear as an
//! HMAC-SHA256 under a per-process random key: any change to them changes the digest, yet the
//! digest input never holds one. A consequence: a digest over a launch with secrets is valid for
//! this sidecar process only. Which config fields cannot matter, and why, is [`super::bound`].

use std::collections::BTreeSet;
use std::sync::OnceLock;

use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::secrets::looks_secret;
use crate::canonical::{canonical_json, sha256_tagged};
use crate::config::{Extras, OAuthSpec, ProtocolChoice, RemoteKind, ServerSpec};

/// The version of the digest input (`v`); bumped whenever what it covers changes.
pub const VERSION: u64 = 2;

/// `sha256:<hex>` of the launch.
pub fn digest(spec: &ServerSpec, extras: &Extras) -> String {
    sha256_tagged(canonical_json(&digest_input(spec, extras)).as_bytes())
}

/// The transport as the digest and the trust request name it: `stdio`, `http`, `sse`, or `auto`
/// (Streamable HTTP falling back to legacy SSE: a URL without a type).
pub fn transport(spec: &ServerSpec) -> &'static str {
    match spec.remote.as_ref().map(|r| r.kind) {
        None => "stdio",
        Some(RemoteKind::Http) => "http",
        Some(RemoteKind::Sse) => "sse",
        Some(RemoteKind::Auto) => "auto",
    }
}

/// Names whose values are secret by mark: `secretEnv`, `secretHeaders`, env files' variables and
/// headers given as `{value, secret: true}` (names that look secret are secret besides these).
pub fn secret_names(spec: &ServerSpec, extras: &Extras) -> BTreeSet<String> {
    let mut names = extras.secret_names.clone();
    if let Some(remote) = &spec.remote {
        names.extend(
            remote
                .headers
                .iter()
                .filter(|h| h.secret)
                .map(|h| h.name.clone()),
        );
    }
    names
}

/// `(name, value)` of every header of a remote server.
pub fn headers(spec: &ServerSpec) -> Vec<(&str, &str)> {
    spec.remote
        .iter()
        .flat_map(|r| &r.headers)
        .map(|h| (h.name.as_str(), h.value.as_str()))
        .collect()
}

/// The keyed form of a secret: `hmac-sha256:<hex>` under the per-process key.
pub fn keyed(value: &str) -> String {
    format!("hmac-sha256:{}", hex::encode(hmac(key(), value.as_bytes())))
}

/// The JSON the digest is taken over, in its canonical text (the one the tool fingerprint uses).
/// Secret values appear as `hmac-sha256:<hex>`. Lists whose order means nothing (names, filters,
/// permissions) are sorted sets; `args` keeps its order.
pub fn digest_input(spec: &ServerSpec, extras: &Extras) -> Value {
    let marked = secret_names(spec, extras);
    let pairs = |pairs: Vec<(&str, &str)>| -> Map<String, Value> {
        pairs
            .into_iter()
            .map(|(k, v)| {
                let v = if marked.contains(k) || looks_secret(k) {
                    keyed(v)
                } else {
                    v.to_owned()
                };
                (k.to_owned(), Value::from(v))
            })
            .collect()
    };
    let env_files: Vec<Value> = extras
        .env_files
        .iter()
        .map(|f| {
            json!({
                "path": f.path,
                "configDir": f.config_dir,
                "names": set(&f.names),
                "contents": keyed(&f.sha256),
            })
        })
        .collect();
    let mut input = json!({
        "v": VERSION,
        "transport": transport(spec),
        "command": spec.command,
        "args": spec.args,
        "env": pairs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()),
        "inheritEnv": set(&spec.inherit_env),
        "envFiles": env_files,
        "cwd": spec.cwd.as_ref().map(|p| p.to_string_lossy()),
        "url": spec.remote.as_ref().map(|r| r.url.as_str()),
        "headers": pairs(headers(spec)),
        "secretNames": marked,
        "includeTools": set(&extras.include_tools),
        "excludeTools": set(&extras.exclude_tools),
        "expectTools": extras.expect_tools.as_deref().map(set),
        "permissions": extras.permissions.as_deref().map(set),
        "permissionMetaKey": extras.permission_meta_key,
        // Which values are masked, and whether results are: what the model is shown.
        "secretValues": extras.secret_values.iter().map(|v| keyed(v)).collect::<BTreeSet<_>>(),
        "maskSecretsInResults": extras.mask_secrets_in_results,
    });
    // Fields added after version 2 enter only when given, so an approval of a config that does
    // not use them stays valid.
    for (field, given) in [
        ("resourcesAsTools", extras.resources_as_tools),
        ("pinTools", extras.pin_tools),
    ] {
        if let Some(value) = given {
            input[field] = Value::Bool(value);
        }
    }
    // What the server is sent depends on the era it is spoken to in (`server/discover` or
    // `initialize`, `_meta` on every request); present only when not the default `auto`.
    if spec.protocol != ProtocolChoice::Auto {
        input["protocolVersion"] = Value::from(spec.protocol.as_str());
    }
    // What confines the server: every field of the policy, its preset's defaults filled in, so a
    // preset whose meaning is spelled out differently gives the same digest. Present only when
    // sandboxed (`false` and no field alike).
    if let Some(sandbox) = &spec.sandbox {
        input["sandbox"] = sandbox.to_json();
    }
    // The registry, name, exact version and archive hash of a `package` server: what is fetched
    // and run. Present only when configured, like `oauth`.
    if let Some(package) = &spec.package {
        input["package"] = package.digest_input();
    }
    // Present only when configured, so the digest of every config without it is unchanged.
    if let Some(oauth) = spec.remote.as_ref().and_then(|r| r.oauth.as_ref()) {
        input["oauth"] = oauth_input(oauth);
    }
    input
}

/// The `oauth` object as the digest binds it: who the client is, its secret keyed, the scopes as a
/// set, where the browser comes back, which authorization server the client belongs to, and the
/// client-credentials grant (named only when chosen, so digests of earlier configs stay the same).
pub fn oauth_input(oauth: &OAuthSpec) -> Value {
    let mut input = json!({
        "clientId": oauth.client_id,
        "clientSecret": oauth.client_secret.as_deref().map(keyed),
        "scopes": oauth.scopes.as_deref().map(set),
        "clientMetadataUrl": oauth.client_metadata_url.as_ref().map(|u| u.as_str()),
        "redirectUri": oauth.redirect_uri.as_ref().map(|u| u.as_str()),
        "issuer": oauth.issuer,
    });
    if oauth.grant == crate::config::Grant::ClientCredentials {
        input["grant"] = json!("client_credentials");
    }
    if let Some(key) = &oauth.client_assertion_key_file {
        input["clientAssertionKeyFile"] = json!(key.to_string_lossy());
    }
    // Where the token comes from decides what the server receives (named only when set).
    if let Some(file) = &oauth.token_file {
        input["tokenFile"] = json!(file.to_string_lossy());
    }
    input
}

/// A list as a sorted set.
fn set(items: &[String]) -> BTreeSet<&str> {
    items.iter().map(String::as_str).collect()
}

/// The per-process random key of the keyed hash.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut k = [0u8; 32];
        if getrandom::fill(&mut k).is_err() {
            // No OS randomness: still unpredictable enough to keep secrets out of the digest input,
            // from the process's own addresses and clock.
            let seed = format!(
                "{:?}{:p}{}",
                std::time::SystemTime::now(),
                &k,
                std::process::id()
            );
            k.copy_from_slice(&Sha256::digest(seed.as_bytes()));
        }
        k
    })
}

/// HMAC-SHA256 (RFC 2104).
pub fn hmac(key: &[u8], message: &[u8]) -> [u8; 32] {
    // Any key length is valid for HMAC (a long key is hashed first), so this cannot fail.
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(message);
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::extras;

    fn parsed(config: Value) -> (ServerSpec, Extras) {
        let (rest, extras) = extras::split(&config).unwrap();
        (ServerSpec::from_json(&rest).unwrap(), extras)
    }

    /// One sandbox spelled several ways is one digest; no sandbox (`false` or absent) leaves the
    /// digest of a config as it was before the field existed.
    #[test]
    fn sandbox_spellings_share_a_digest() {
        let d = |sandbox: Option<Value>| {
            let mut config = json!({"command": "srv"});
            if let Some(s) = sandbox {
                config["sandbox"] = s;
            }
            let (spec, extras) = parsed(config);
            digest(&spec, &extras)
        };
        assert_eq!(d(Some(json!(false))), d(None));
        let strict = d(Some(json!("strict")));
        assert_ne!(strict, d(None));
        assert_eq!(d(Some(json!(true))), strict);
        assert_eq!(d(Some(json!({}))), strict);
        assert_eq!(
            d(Some(json!({"preset": "strict", "network": "none"}))),
            strict
        );
        assert_eq!(
            d(Some(json!({"read": ["/b", "/a"]}))),
            d(Some(json!({"read": ["/a", "/b", "/a"]})))
        );
    }

    fn digest_of(config: Value) -> String {
        let (spec, extras) = parsed(config);
        digest(&spec, &extras)
    }

    /// RFC 4231 test cases 1, 2, 3 and 6 (6: a key longer than the block, hashed first).
    #[test]
    fn hmac_rfc4231_known_answers() {
        let cases: [(&[u8], &[u8], &str); 4] = [
            (
                &[0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 20],
                &[0xdd; 50],
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (i, (key, message, want)) in cases.iter().enumerate() {
            assert_eq!(hex::encode(hmac(key, message)), *want, "case #{i}");
        }
    }

    /// The digest's bytes are pinned: the canonical text (version 2) and its sha256 (no secret in
    /// it, so the per-process key plays no part).
    #[test]
    fn digest_value_is_pinned() {
        let (spec, extras) = parsed(
            json!({"command": "npx", "args": ["-y", "pkg"], "env": {"LEVEL": "1"}, "cwd": "/srv"}),
        );
        let text = canonical_json(&digest_input(&spec, &extras));
        assert_eq!(
            text,
            r#"{"args":["-y","pkg"],"command":"npx","cwd":"/srv","env":{"LEVEL":"1"},"envFiles":[],"excludeTools":[],"expectTools":null,"headers":{},"includeTools":[],"inheritEnv":[],"maskSecretsInResults":true,"permissionMetaKey":null,"permissions":null,"secretNames":[],"secretValues":[],"transport":"stdio","url":null,"v":2}"#
        );
        assert_eq!(
            digest(&spec, &extras),
            "sha256:743f09cfcd229fd0d340c8ee772f3f8e4d510527c8c348f788c074b84bcf422c"
        );
    }

    #[test]
    fn stable_and_secret_free() {
        let base = json!({"command": "npx", "args": ["-y", "pkg"], "env": {"LEVEL": "1", "API_TOKEN": "t1"}});
        let d = digest_of(base.clone());
        assert!(d.starts_with("sha256:") && d.len() == 7 + 64);
        // Stable: same launch, same digest; the order of env, filters and names does not matter.
        assert_eq!(
            digest_of(
                json!({"env": {"API_TOKEN": "t1", "LEVEL": "1"}, "args": ["-y", "pkg"], "command": "npx"})
            ),
            d
        );
        assert_eq!(
            digest_of(
                json!({"command": "x", "inheritEnv": ["A", "B"], "includeTools": ["b", "a"]})
            ),
            digest_of(
                json!({"command": "x", "inheritEnv": ["B", "A"], "includeTools": ["a", "b"]})
            )
        );
        // A changed secret changes it too.
        assert_ne!(
            digest_of(
                json!({"command": "npx", "args": ["-y", "pkg"], "env": {"LEVEL": "1", "API_TOKEN": "t2"}})
            ),
            d
        );
        // The input never holds a secret value.
        let (spec, extras) = parsed(json!({
            "url": "https://h/mcp",
            "headers": {"Authorization": "Bearer hdr-secret", "X-Marked": {"value": "marked-value", "secret": true}},
        }));
        let input = digest_input(&spec, &extras).to_string();
        assert!(
            !input.contains("hdr-secret") && !input.contains("marked-value"),
            "{input}"
        );
        let (spec, extras) =
            parsed(json!({"command": "x", "env": {"API_TOKEN": "t1-secret-value"}}));
        let input = digest_input(&spec, &extras).to_string();
        assert!(!input.contains("t1-secret-value"), "{input}");
    }

    /// `oauth` is bound field by field, its secret keyed, in either spelling; a remote config
    /// without it keeps the digest it had before `oauth` existed.
    #[test]
    fn oauth_is_bound() {
        let remote = json!({"url": "https://h/mcp"});
        let (spec, extras) = parsed(remote.clone());
        assert!(digest_input(&spec, &extras).get("oauth").is_none());
        let with = |oauth: Value| {
            let mut c = remote.clone();
            c["oauth"] = oauth;
            digest_of(c)
        };
        let base = with(
            json!({"clientId": "cid", "clientSecret": "oauth-secret-value", "scopes": ["a", "b"]}),
        );
        assert_ne!(base, digest_of(remote.clone()));
        assert_eq!(
            base,
            with(
                json!({"client_id": "cid", "client_secret": "oauth-secret-value", "scopes": ["b", "a"]})
            )
        );
        for changed in [
            json!({"clientId": "cid2", "clientSecret": "oauth-secret-value", "scopes": ["a", "b"]}),
            json!({"clientId": "cid", "clientSecret": "oauth-secret-other", "scopes": ["a", "b"]}),
            json!({"clientId": "cid", "clientSecret": "oauth-secret-value", "scopes": ["a"]}),
            json!({"clientId": "cid", "clientSecret": "oauth-secret-value", "scopes": ["a", "b"], "issuer": "https://as"}),
            json!({"clientId": "cid", "clientSecret": "oauth-secret-value", "scopes": ["a", "b"], "redirectUri": "http://127.0.0.1:1/cb"}),
        ] {
            assert_ne!(with(changed.clone()), base, "{changed}");
        }
        assert_ne!(
            with(json!({"clientMetadataUrl": "https://app.example/a.json"})),
            with(json!({"clientMetadataUrl": "https://app.example/b.json"}))
        );
        let token_file = with(json!({"tokenFile": "/run/secrets/a"}));
        assert_ne!(token_file, with(json!({})));
        assert_ne!(token_file, with(json!({"tokenFile": "/run/secrets/b"})));
        assert_eq!(token_file, with(json!({"token_file": "/run/secrets/a"})));
        let mut c = remote.clone();
        c["oauth"] = json!({"clientId": "cid", "clientSecret": "oauth-secret-value"});
        let (spec, extras) = parsed(c);
        let input = digest_input(&spec, &extras).to_string();
        assert!(!input.contains("oauth-secret-value"), "{input}");
    }

    /// The fields added after version 2 leave the digest of a config without them unchanged (the
    /// pinned value above) and move it when given, each value apart.
    #[test]
    fn later_fields_enter_only_when_given() {
        let base =
            json!({"command": "npx", "args": ["-y", "pkg"], "env": {"LEVEL": "1"}, "cwd": "/srv"});
        let d = digest_of(base.clone());
        assert_eq!(
            d,
            "sha256:743f09cfcd229fd0d340c8ee772f3f8e4d510527c8c348f788c074b84bcf422c"
        );
        let mut seen = std::collections::BTreeSet::from([d]);
        for field in ["resourcesAsTools", "pinTools"] {
            for value in [true, false] {
                let mut c = base.clone();
                c[field] = json!(value);
                assert!(seen.insert(digest_of(c)), "{field}: {value}");
            }
        }
        // `protocolVersion: "auto"` is the default: the digest of a config that says so is the
        // pinned one; every other value moves it.
        let mut auto = base.clone();
        auto["protocolVersion"] = json!("auto");
        assert!(seen.contains(&digest_of(auto)));
        for value in ["legacy", "2026-07-28", "2025-11-25"] {
            let mut c = base.clone();
            c["protocolVersion"] = json!(value);
            assert!(seen.insert(digest_of(c)), "protocolVersion: {value}");
        }
    }
}
