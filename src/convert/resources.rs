//! Resources as tool results: the contents of a `resources/read` and a listing of resources and
//! templates become a `CallToolResult` (`{"content": [...]}`), the shape the result conversion
//! ([`super::results`]) and the result budget already take. So a resource reaches the host — and,
//! through `read_resource`, a model — in the same provider shapes as a tool's result.
//!
//! One content item becomes one block:
//! - `text` → a text block (prefixed `[resource <uri>]` when there are several items, so a model
//!   can tell them apart);
//! - a `blob` of an `image/*` or `audio/*` type → an image or audio block (the base64 `data` and
//!   its `mimeType`, carried natively where a provider takes it);
//! - a `blob` of a textual type (`text/*`, JSON, XML, YAML, JavaScript) that decodes to UTF-8 → a
//!   text block of the decoded text (a model cannot read base64);
//! - any other item → an embedded resource block (rendered `[resource <uri>: <mimeType>, blob]`).

use base64::Engine as _;
use serde_json::{json, Map, Value};

/// The contents of a `resources/read` result as a `CallToolResult`.
pub fn contents_result(contents: &[Value]) -> Value {
    let labelled = contents.len() > 1;
    let blocks: Vec<Value> = contents.iter().map(|c| block(c, labelled)).collect();
    json!({ "content": blocks })
}

/// A listing of resources and resource templates as a `CallToolResult`: one line per item for a
/// model, and the items themselves as `structuredContent`.
pub fn listing_result(resources: &[Value], templates: &[Value]) -> Value {
    let mut lines = vec![format!("Resources ({}):", resources.len())];
    lines.extend(resources.iter().map(|r| line(r, "uri")));
    if !templates.is_empty() {
        lines.push(format!("Resource templates ({}):", templates.len()));
        lines.extend(templates.iter().map(|t| line(t, "uriTemplate")));
    }
    json!({
        "content": [{"type": "text", "text": lines.join("\n")}],
        "structuredContent": {"resources": resources, "resourceTemplates": templates},
    })
}

/// `- <uri> — <title or name> (<mimeType>): <description>`, the optional parts left out.
fn line(item: &Value, uri_key: &str) -> String {
    let field = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let mut out = format!("- {}", field(uri_key).unwrap_or_default());
    if let Some(name) = field("title").or_else(|| field("name")) {
        out.push_str(&format!(" — {name}"));
    }
    if let Some(mime) = field("mimeType") {
        out.push_str(&format!(" ({mime})"));
    }
    if let Some(description) = field("description") {
        out.push_str(&format!(": {}", description.replace('\n', " ")));
    }
    out
}

fn block(item: &Value, labelled: bool) -> Value {
    let field = |key: &str| item.get(key).and_then(Value::as_str);
    let uri = field("uri").unwrap_or_default();
    let text_block = |text: &str| {
        let text = if labelled {
            format!("[resource {uri}]\n{text}")
        } else {
            text.to_owned()
        };
        json!({"type": "text", "text": text})
    };
    if let Some(text) = field("text") {
        return text_block(text);
    }
    if let (Some(blob), Some(mime)) = (field("blob"), field("mimeType")) {
        let kind = mime.split('/').next().unwrap_or_default();
        if kind == "image" || kind == "audio" {
            let mut out = Map::new();
            out.insert("type".into(), Value::from(kind));
            out.insert("data".into(), Value::from(blob));
            out.insert("mimeType".into(), Value::from(mime));
            return Value::Object(out);
        }
        if textual(mime) {
            if let Some(text) = decoded(blob) {
                return text_block(&text);
            }
        }
    }
    json!({"type": "resource", "resource": item})
}

/// Whether a media type names text a model can read once decoded.
fn textual(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    essence.starts_with("text/")
        || [
            "application/json",
            "application/xml",
            "application/yaml",
            "application/javascript",
        ]
        .contains(&essence)
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

/// A base64 blob as UTF-8 text, if it is both.
fn decoded(blob: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{convert_result, ToolFormat};

    const PNG: &str = "iVBORw0KGgo=";

    #[test]
    fn one_text_content_is_plain_text() {
        let r = contents_result(&[json!({"uri": "a://x", "mimeType": "text/plain", "text": "hi"})]);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"content":[{"text":"hi","type":"text"}]}"#
        );
    }

    #[test]
    fn blobs_become_media_decoded_text_or_an_embedded_resource() {
        let contents = [
            json!({"uri": "a://1", "text": "one"}),
            json!({"uri": "a://2", "mimeType": "image/png", "blob": PNG}),
            json!({"uri": "a://3", "mimeType": "text/plain; charset=utf-8", "blob": "aMOpbGxv"}),
            json!({"uri": "a://4", "mimeType": "application/octet-stream", "blob": "AAEC"}),
            json!({"uri": "a://5", "mimeType": "application/json", "blob": "//79"}),
        ];
        let r = contents_result(&contents);
        let out = convert_result(ToolFormat::Openai, &r);
        assert_eq!(
            out.output,
            json!("[resource a://1]\none\n[resource a://3]\nhéllo\n[image: image/png, 12 bytes base64]\n[resource a://4: application/octet-stream, blob]\n[resource a://5: application/json, blob]")
        );
        let anthropic = convert_result(ToolFormat::Anthropic, &r).output;
        assert_eq!(
            anthropic[1],
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}})
        );
    }

    #[test]
    fn a_listing_has_one_line_per_item_and_the_items_as_structured_content() {
        let resources = [
            json!({"uri": "a://r", "name": "r", "title": "The R", "mimeType": "text/plain", "description": "two\nlines"}),
            json!({"uri": "a://s", "name": "s"}),
        ];
        let templates = [json!({"uriTemplate": "a://t/{id}", "name": "t"})];
        let r = listing_result(&resources, &templates);
        assert_eq!(
            r["content"][0]["text"],
            "Resources (2):\n- a://r — The R (text/plain): two lines\n- a://s — s\nResource templates (1):\n- a://t/{id} — t"
        );
        assert_eq!(r["structuredContent"]["resourceTemplates"][0]["name"], "t");
        assert_eq!(
            listing_result(&[], &[])["content"][0]["text"],
            "Resources (0):"
        );
    }
}
