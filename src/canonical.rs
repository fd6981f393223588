//! The one canonical JSON form of the crate (compact, object keys sorted by byte order) and the
//! tagged sha256 of bytes. The tool fingerprint (`convert::fingerprint`) and the launch digest
//! (`trust::digest`) both hash it, so the two can never disagree on what "the same JSON" means.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical JSON text of `value`: compact, object keys sorted by byte order, scalars in
/// serde_json's own formatting (escaping, numbers). The one canonical form of the crate: the tool
/// fingerprint and the launch digest (`trust::digest`) both hash it.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// `"sha256:" + lowercase hex of sha256(bytes)`.
pub(crate) fn sha256_tagged(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// Compact JSON with object keys sorted; scalars use serde_json's own
/// formatting (escaping, numbers).
pub(crate) fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(key).unwrap_or_default());
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        // Serialising a string, number, bool or null cannot fail.
        scalar => out.push_str(&serde_json::to_string(scalar).unwrap_or_default()),
    }
}
