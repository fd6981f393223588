//! Keyword-level rewrites that need no context: meta-keywords dropped everywhere, and `const`
//! written as a one-value `enum` for the providers without `const`.

use serde_json::Value;

use super::notes::{Action, Notes};
use super::walk::{self, child};

/// Keywords about the schema document rather than the data: providers reject (`$schema` makes
/// Gemini answer 400 "Unknown name") or ignore them, and after inlining none of them means anything.
pub const META: &[&str] = &[
    "$anchor",
    "$comment",
    "$dynamicAnchor",
    "$dynamicRef",
    "$id",
    "$recursiveAnchor",
    "$recursiveRef",
    "$schema",
    "$vocabulary",
];

/// Drops every [`META`] keyword, anywhere in the tree.
pub fn drop_meta(schema: &mut Value, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| {
        for key in META {
            if node.remove(*key).is_some() {
                notes.add(
                    &child(path, key),
                    Action::Dropped,
                    format!("`{key}` describes the schema document, not the data; providers reject or ignore it"),
                );
            }
        }
    });
}

/// `"const": v` → `"enum": [v]` (the same meaning). An `enum` already there is replaced: `const`
/// is the stricter of the two.
pub fn const_to_enum(schema: &mut Value, provider: &str, notes: &mut Notes) {
    walk::post_order(schema, &mut |node, path, _| {
        if let Some(value) = node.remove("const") {
            node.insert("enum".into(), Value::Array(vec![value]));
            notes.add(
                &child(path, "const"),
                Action::Rewritten,
                format!("`const` written as a one-value `enum` ({provider} has no `const`)"),
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_keywords_go_everywhere() {
        let mut schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$id": "urn:x",
            "type": "object",
            "properties": {"a": {"$comment": "internal", "type": "string", "description": "$schema is fine in text"}}
        });
        let mut notes = Notes::default();
        drop_meta(&mut schema, &mut notes);
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            r#"{"properties":{"a":{"description":"$schema is fine in text","type":"string"}},"type":"object"}"#
        );
        let paths: Vec<&str> = notes.as_slice().iter().map(|n| n.path.as_str()).collect();
        assert_eq!(paths, ["/properties/a/$comment", "/$id", "/$schema"]);
    }

    #[test]
    fn const_becomes_enum() {
        let mut schema = json!({"anyOf": [{"const": "a"}, {"const": {"k": 1}, "enum": [1]}]});
        let mut notes = Notes::default();
        const_to_enum(&mut schema, "Gemini", &mut notes);
        assert_eq!(
            serde_json::to_string(&schema).unwrap(),
            r#"{"anyOf":[{"enum":["a"]},{"enum":[{"k":1}]}]}"#
        );
        assert_eq!(
            serde_json::to_string(notes.as_slice()).unwrap(),
            r#"[{"action":"rewritten","path":"/anyOf/0/const","reason":"`const` written as a one-value `enum` (Gemini has no `const`)"},{"action":"rewritten","path":"/anyOf/1/const","reason":"`const` written as a one-value `enum` (Gemini has no `const`)"}]"#
        );
    }
}
