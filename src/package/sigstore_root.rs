//! Sigstore's trusted root as verification reads it: the Rekor logs' keys and the Fulcio
//! authorities' chains, each with the times it is valid for. The public-good root is embedded in
//! the binary (`sigstore_trusted_root.json`; its source and date in docs/packages.md).

use serde_json::Value;

use super::sigstore_bundle::{b64, Failure};

/// Sigstore's public-good trusted root (`trusted_root.json` of its TUF repository).
const PUBLIC_GOOD_ROOT: &str = include_str!("sigstore_trusted_root.json");

/// A trusted root: Rekor keys and Fulcio chains with the times they are valid for.
pub(super) struct TrustedRoot {
    pub(super) logs: Vec<Log>,
    pub(super) authorities: Vec<Authority>,
}

pub(super) struct Log {
    pub(super) key_id: Vec<u8>,
    /// SubjectPublicKeyInfo, DER; only ECDSA P-256 keys can check a signed entry timestamp.
    pub(super) spki: Vec<u8>,
    pub(super) ecdsa_p256: bool,
    pub(super) valid: Window,
}

pub(super) struct Authority {
    /// Leaf-first: intermediates, then the root.
    pub(super) chain: Vec<Vec<u8>>,
    pub(super) valid: Window,
}

pub(super) struct Window {
    start: i64,
    end: Option<i64>,
}

impl Window {
    pub(super) fn covers(&self, t: i64) -> bool {
        t >= self.start && self.end.is_none_or(|end| t <= end)
    }
}

/// Seconds since the epoch of a UTC RFC 3339 time as the trusted root writes them
/// (`2022-04-13T20:06:15Z`, `2022-12-31T23:59:59.999Z`); fractions are dropped.
fn time(v: &Value) -> Option<i64> {
    let text = v.as_str()?.strip_suffix('Z')?;
    let (date, clock) = text.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let clock = clock.split('.').next()?;
    let mut c = clock.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (h, min, sec) = (c.next()??, c.next()??, c.next()??);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + min * 60 + sec)
}

fn window(v: &Value) -> Option<Window> {
    Some(Window {
        start: time(&v["start"])?,
        end: time(&v["end"]),
    })
}

impl TrustedRoot {
    /// Sigstore's public-good root, as embedded.
    pub(super) fn public_good() -> Result<Self, Failure> {
        Self::from_json(PUBLIC_GOOD_ROOT)
    }

    /// A root in `trusted_root.json`'s shape.
    pub(super) fn from_json(text: &str) -> Result<Self, Failure> {
        let root: Value = serde_json::from_str(text)
            .map_err(|e| Failure::new(format!("the trusted root: {e}")))?;
        let logs = root["tlogs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| {
                let key = &t["publicKey"];
                Some(Log {
                    key_id: b64(t["logId"]["keyId"].as_str()?)?,
                    spki: b64(key["rawBytes"].as_str()?)?,
                    ecdsa_p256: key["keyDetails"] == "PKIX_ECDSA_P256_SHA_256",
                    valid: window(&key["validFor"])?,
                })
            })
            .collect();
        let authorities = root["certificateAuthorities"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|ca| {
                let chain: Option<Vec<Vec<u8>>> = ca["certChain"]["certificates"]
                    .as_array()?
                    .iter()
                    .map(|c| b64(c["rawBytes"].as_str()?))
                    .collect();
                Some(Authority {
                    chain: chain.filter(|c| !c.is_empty())?,
                    valid: window(&ca["validFor"])?,
                })
            })
            .collect();
        Ok(Self { logs, authorities })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_good_root_is_embedded_whole() {
        let root = TrustedRoot::public_good().unwrap();
        assert!(root.logs.iter().any(|l| l.ecdsa_p256), "Rekor's P-256 key");
        assert!(root.authorities.len() >= 2, "Fulcio's authorities");
        assert_eq!(
            time(&Value::from("2022-04-13T20:06:15Z")),
            Some(1_649_880_375)
        );
        assert_eq!(
            time(&Value::from("2022-12-31T23:59:59.999Z")),
            Some(1_672_531_199)
        );
    }
}
