//! The launch digest: sha256 over a canonical JSON of `{command, args, env, cwd, url, headers}`, in
//! which secret values are replaced by an HMAC-SHA256 under a per-process random key. Any change to
//! those fields changes the digest (a changed secret too), yet the digest input never holds a secret.
//! A consequence: a digest over a launch with secrets is valid for this sidecar process only.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::secrets::looks_secret;
use crate::canonical::{canonical_json, sha256_tagged};

/// The launch fields the digest covers, already normalised (absent lists and maps are empty).
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub env: Vec<(&'a str, &'a str)>,
    pub cwd: Option<String>,
    pub url: Option<&'a str>,
    pub headers: Vec<(&'a str, &'a str)>,
    /// Names marked secret (env and headers) besides those that look secret.
    pub secret_names: &'a BTreeSet<String>,
}

/// `sha256:<hex>` of the launch.
pub fn digest(launch: &Launch<'_>) -> String {
    sha256_tagged(canonical_json(&digest_input(launch)).as_bytes())
}

/// The JSON the digest is taken over, in its canonical text (the one the tool fingerprint uses).
/// Secret values appear as `hmac-sha256:<hex>`.
pub fn digest_input(launch: &Launch<'_>) -> Value {
    let keyed = |pairs: &[(&str, &str)]| -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| {
                let v = if launch.secret_names.contains(*k) || looks_secret(k) {
                    format!("hmac-sha256:{}", hex::encode(hmac(key(), v.as_bytes())))
                } else {
                    (*v).to_owned()
                };
                ((*k).to_owned(), Value::from(v))
            })
            .collect()
    };
    json!({
        "command": launch.command,
        "args": launch.args,
        "env": keyed(&launch.env),
        "cwd": launch.cwd,
        "url": launch.url,
        "headers": keyed(&launch.headers),
    })
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

    /// The digest's bytes are pinned: the canonical text and its sha256 (no secret in it, so the
    /// per-process key plays no part).
    #[test]
    fn digest_value_is_pinned() {
        let none = BTreeSet::new();
        let args = vec!["-y".to_owned(), "pkg".to_owned()];
        let launch = Launch {
            command: "npx",
            args: &args,
            env: vec![("LEVEL", "1")],
            cwd: Some("/srv".into()),
            url: None,
            headers: vec![],
            secret_names: &none,
        };
        let text = canonical_json(&digest_input(&launch));
        assert_eq!(
            text,
            r#"{"args":["-y","pkg"],"command":"npx","cwd":"/srv","env":{"LEVEL":"1"},"headers":{},"url":null}"#
        );
        // Same bytes as serde_json's own compact output (what the digest was taken over before).
        assert_eq!(
            text,
            serde_json::to_string(&digest_input(&launch)).unwrap_or_default()
        );
        assert_eq!(
            digest(&launch),
            "sha256:7654414dd63a5d4632e7716e338776f930456f2f605232323cda7ff048219a20"
        );
    }

    #[test]
    fn stable_and_sensitive() {
        let none = BTreeSet::new();
        let args = vec!["-y".to_owned(), "pkg".to_owned()];
        let base = Launch {
            command: "npx",
            args: &args,
            env: vec![("LEVEL", "1"), ("API_TOKEN", "t1")],
            cwd: None,
            url: None,
            headers: vec![],
            secret_names: &none,
        };
        let d = digest(&base);
        assert!(d.starts_with("sha256:") && d.len() == 7 + 64);
        // Stable: same launch, same digest; env order does not matter.
        assert_eq!(
            digest(&Launch {
                env: vec![("API_TOKEN", "t1"), ("LEVEL", "1")],
                ..base.clone()
            }),
            d
        );
        let other_args = vec!["-y".to_owned(), "pkg2".to_owned()];
        let marked: BTreeSet<String> = ["LEVEL".to_owned()].into();
        let changes = [
            Launch {
                command: "npx2",
                ..base.clone()
            },
            Launch {
                args: &other_args,
                ..base.clone()
            },
            Launch {
                env: vec![("LEVEL", "2"), ("API_TOKEN", "t1")],
                ..base.clone()
            },
            Launch {
                env: vec![("LEVEL", "1"), ("API_TOKEN", "t2")],
                ..base.clone()
            },
            Launch {
                env: vec![("LEVEL", "1")],
                ..base.clone()
            },
            Launch {
                cwd: Some("/tmp".into()),
                ..base.clone()
            },
            Launch {
                url: Some("https://x"),
                ..base.clone()
            },
            Launch {
                headers: vec![("Authorization", "Bearer a")],
                ..base.clone()
            },
            Launch {
                secret_names: &marked,
                ..base.clone()
            },
        ];
        for (i, c) in changes.iter().enumerate() {
            assert_ne!(digest(c), d, "change #{i} not detected");
        }
        // The input never holds a secret value.
        let input = digest_input(&Launch {
            env: vec![("API_TOKEN", "t1-secret-value")],
            headers: vec![("Authorization", "Bearer hdr-secret")],
            ..base.clone()
        })
        .to_string();
        assert!(
            !input.contains("t1-secret-value") && !input.contains("hdr-secret"),
            "{input}"
        );
    }
}
