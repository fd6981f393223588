//! The fingerprint of a tool list: a short stable string that changes exactly
//! when the definitions a host would send change (content or order), so a
//! host can tell whether it must refresh its tools.
//!
//! It is `"sha256:" + hex(sha256(canonical JSON of the definitions array))`,
//! where canonical means object keys sorted by byte order and no whitespace.
//! Without serde_json's `preserve_order` feature (this crate does not enable
//! it) that is exactly `serde_json::to_string` of the array; the writer in
//! [`crate::canonical`] sorts keys itself anyway, so the fingerprint cannot
//! shift if some dependency ever turns that feature on through feature
//! unification.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical::{sha256_tagged, write_canonical};

/// sha256 over the canonical JSON (sorted keys, no whitespace) of the definitions in order, as "sha256:<64 hex>".
pub fn fingerprint(definitions: &[Value]) -> String {
    let mut canonical = String::new();
    canonical.push('[');
    for (i, definition) in definitions.iter().enumerate() {
        if i > 0 {
            canonical.push(',');
        }
        write_canonical(definition, &mut canonical);
    }
    canonical.push(']');
    sha256_tagged(canonical.as_bytes())
}

/// [`fingerprint`] of definitions already in canonical JSON text (each as [`write_canonical`]
/// writes it), hashed as they are, without building the array: the same value for the same
/// definitions.
pub fn fingerprint_canonical<'a>(definitions: impl IntoIterator<Item = &'a str>) -> String {
    let mut hash = Sha256::new();
    hash.update(b"[");
    for (i, definition) in definitions.into_iter().enumerate() {
        if i > 0 {
            hash.update(b",");
        }
        hash.update(definition.as_bytes());
    }
    hash.update(b"]");
    format!("sha256:{}", hex::encode(hash.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonical_json;

    #[test]
    fn canonical_texts_hash_like_values() {
        let defs = [json!({"b": 1, "a": [2]}), json!("x"), json!({"n": null})];
        let texts: Vec<String> = defs.iter().map(canonical_json).collect();
        assert_eq!(
            fingerprint_canonical(texts.iter().map(String::as_str)),
            fingerprint(&defs)
        );
        assert_eq!(fingerprint_canonical([]), fingerprint(&[]));
    }
    use serde_json::json;

    #[test]
    fn empty_list() {
        // printf '[]' | sha256sum
        assert_eq!(
            fingerprint(&[]),
            "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
    }

    #[test]
    fn pinned_value_and_canonical_text() {
        let defs = [
            json!({"type": "function", "name": "b", "parameters": {"type": "object", "properties": {}}}),
            json!({"name": "a\u{e9}\"\n", "n": [1, 2.5, true, null]}),
        ];
        let canonical = canonical_json(&Value::from(defs.to_vec()));
        assert_eq!(
            canonical,
            r#"[{"name":"b","parameters":{"properties":{},"type":"object"},"type":"function"},{"n":[1,2.5,true,null],"name":"aé\"\n"}]"#
        );
        // Same bytes as serde_json's own output (no preserve_order).
        assert_eq!(canonical, serde_json::to_string(&defs).unwrap());
        // printf '<canonical>' | sha256sum
        assert_eq!(
            fingerprint(&defs),
            "sha256:dda3dd881c547ba654b7c8f94ef9d0a6b801456369b717caf093eed998cdf456"
        );
    }

    #[test]
    fn canonical_json_sorts_keys_by_bytes_at_every_depth() {
        // Byte order: uppercase before lowercase before non-ASCII; `1.0` stays `1.0`.
        let mut inner = serde_json::Map::new();
        inner.insert("z".into(), json!(1.0));
        inner.insert("a".into(), json!([{"y": null, "b": "\u{1}"}]));
        let value = json!({"\u{e9}": 0, "B": inner, "a": -2});
        assert_eq!(
            canonical_json(&value),
            "{\"B\":{\"a\":[{\"b\":\"\\u0001\",\"y\":null}],\"z\":1.0},\"a\":-2,\"\u{e9}\":0}"
        );
        assert_eq!(canonical_json(&json!("x")), r#""x""#);
        assert_eq!(
            sha256_tagged(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn order_and_content_matter_whitespace_and_key_order_do_not() {
        let a = json!({"name": "a", "x": 1});
        let b = json!({"name": "b"});
        assert_ne!(
            fingerprint(&[a.clone(), b.clone()]),
            fingerprint(&[b.clone(), a.clone()])
        );
        assert_ne!(
            fingerprint(std::slice::from_ref(&a)),
            fingerprint(&[json!({"name": "a", "x": 2})])
        );
        let reparsed: Value = serde_json::from_str("{ \"x\" : 1 ,\n \"name\":\"a\" }").unwrap();
        assert_eq!(fingerprint(&[a]), fingerprint(&[reparsed]));
        let f = fingerprint(&[b]);
        assert_eq!(f.len(), "sha256:".len() + 64);
        assert!(f["sha256:".len()..]
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
    }
}
