//! The launch digest: sha256 over a canonical JSON of `{command, args, env, cwd, url, headers}`, in
//! which secret values are replaced by an HMAC-SHA256 under a per-process random key. Any change to
//! those fields changes the digest (a changed secret too), yet the digest input never holds a secret.
//! A consequence: a digest over a launch with secrets is valid for this sidecar process only.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::secrets::looks_secret;

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
    let input = digest_input(launch);
    let bytes = serde_json::to_vec(&input).unwrap_or_default();
    format!("sha256:{}", hex(&Sha256::digest(&bytes)))
}

/// The canonical JSON the digest is taken over (keys sorted: serde_json's map is ordered). Secret
/// values appear as `hmac-sha256:<hex>`.
pub fn digest_input(launch: &Launch<'_>) -> Value {
    let keyed = |pairs: &[(&str, &str)]| -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| {
                let v = if launch.secret_names.contains(*k) || looks_secret(k) {
                    format!("hmac-sha256:{}", hex(&hmac(key(), v.as_bytes())))
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
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(message);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_rfc4231_case_2() {
        assert_eq!(
            hex(&hmac(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
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
