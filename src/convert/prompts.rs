//! Prompt messages (`prompts/get`) in a provider's message shape, so a host can put them straight
//! into its conversation:
//!
//! - openai (Chat Completions): `{role, content}` with `content` a string, or — for a user message
//!   with images the API takes — an array of `text` and `image_url` (data URL) parts;
//! - openai-responses: `{role, content: [...]}` of `input_text` / `input_image` parts (a user) or
//!   `output_text` parts (an assistant);
//! - anthropic: `{role, content: [...]}` of text and base64 image blocks;
//! - gemini: a `Content`, `{role: "user" | "model", parts: [{text} | {inlineData}]}`;
//! - mcp: the message as sent.
//!
//! A block a provider cannot carry is rendered as text ([`render_block`]), as in tool results.
//! A message's `content` is one content block (an array of them is taken too).

use serde_json::{json, Map, Value};

use super::format::ToolFormat;
use super::results::{
    anthropic_block, media, render_block, text_of, GEMINI_IMAGE_TYPES, OPENAI_IMAGE_TYPES,
};

/// Every message of a `prompts/get` result in `format`.
pub fn messages(format: ToolFormat, messages: &[Value]) -> Value {
    Value::Array(messages.iter().map(|m| message(format, m)).collect())
}

fn message(format: ToolFormat, message: &Value) -> Value {
    let role = match message.get("role").and_then(Value::as_str) {
        Some("assistant") => "assistant",
        _ => "user",
    };
    let blocks: Vec<&Value> = match message.get("content") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(block @ Value::Object(_)) => vec![block],
        _ => Vec::new(),
    };
    let user = role == "user";
    match format {
        ToolFormat::Mcp => message.clone(),
        ToolFormat::Openai => {
            let images = user
                && blocks
                    .iter()
                    .any(|b| media(b, OPENAI_IMAGE_TYPES).is_some());
            let content = if images {
                Value::Array(blocks.iter().map(|b| openai_part(b)).collect())
            } else {
                Value::String(joined_text(&blocks))
            };
            json!({"role": role, "content": content})
        }
        ToolFormat::OpenaiResponses => {
            let parts: Vec<Value> = blocks
                .iter()
                .map(|b| match media(b, OPENAI_IMAGE_TYPES).filter(|_| user) {
                    Some((mime, data)) => json!({
                        "type": "input_image",
                        "image_url": format!("data:{mime};base64,{data}"),
                    }),
                    None => json!({
                        "type": if user { "input_text" } else { "output_text" },
                        "text": text_of(b).map_or_else(|| render_block(b), str::to_owned),
                    }),
                })
                .collect();
            json!({"role": role, "content": parts})
        }
        ToolFormat::Anthropic => {
            let content: Vec<Value> = blocks.iter().filter_map(|b| anthropic_block(b)).collect();
            json!({"role": role, "content": content})
        }
        ToolFormat::Gemini => {
            let parts: Vec<Value> = blocks
                .iter()
                .map(|b| match media(b, GEMINI_IMAGE_TYPES) {
                    Some((mime, data)) => {
                        json!({"inlineData": {"mimeType": mime, "data": data}})
                    }
                    None => {
                        json!({"text": text_of(b).map_or_else(|| render_block(b), str::to_owned)})
                    }
                })
                .collect();
            let mut out = Map::new();
            out.insert(
                "role".into(),
                Value::from(if user { "user" } else { "model" }),
            );
            out.insert("parts".into(), Value::Array(parts));
            Value::Object(out)
        }
    }
}

/// One block as a Chat Completions user content part.
fn openai_part(block: &Value) -> Value {
    match media(block, OPENAI_IMAGE_TYPES) {
        Some((mime, data)) => json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{mime};base64,{data}")},
        }),
        None => json!({
            "type": "text",
            "text": text_of(block).map_or_else(|| render_block(block), str::to_owned),
        }),
    }
}

/// The text of every block (rendered when not text), joined with `"\n"`.
fn joined_text(blocks: &[&Value]) -> String {
    blocks
        .iter()
        .map(|b| text_of(b).map_or_else(|| render_block(b), str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "iVBORw0KGgo=";

    fn sample() -> Vec<Value> {
        vec![
            json!({"role": "user", "content": {"type": "text", "text": "Describe:"}}),
            json!({"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": PNG}}),
            json!({"role": "assistant", "content": {"type": "resource", "resource": {"uri": "a://x", "text": "body"}}}),
        ]
    }

    /// Exact wire shapes per format (keys sorted: serde_json without `preserve_order`).
    #[test]
    fn every_format() {
        let wire = |f| serde_json::to_string(&messages(f, &sample())).unwrap();
        assert_eq!(
            wire(ToolFormat::Openai),
            r#"[{"content":"Describe:","role":"user"},{"content":[{"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="},"type":"image_url"}],"role":"user"},{"content":"[resource a://x]\nbody","role":"assistant"}]"#
        );
        assert_eq!(
            wire(ToolFormat::OpenaiResponses),
            r#"[{"content":[{"text":"Describe:","type":"input_text"}],"role":"user"},{"content":[{"image_url":"data:image/png;base64,iVBORw0KGgo=","type":"input_image"}],"role":"user"},{"content":[{"text":"[resource a://x]\nbody","type":"output_text"}],"role":"assistant"}]"#
        );
        assert_eq!(
            wire(ToolFormat::Anthropic),
            r#"[{"content":[{"text":"Describe:","type":"text"}],"role":"user"},{"content":[{"source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"},"type":"image"}],"role":"user"},{"content":[{"text":"[resource a://x]\nbody","type":"text"}],"role":"assistant"}]"#
        );
        assert_eq!(
            wire(ToolFormat::Gemini),
            r#"[{"parts":[{"text":"Describe:"}],"role":"user"},{"parts":[{"inlineData":{"data":"iVBORw0KGgo=","mimeType":"image/png"}}],"role":"user"},{"parts":[{"text":"[resource a://x]\nbody"}],"role":"model"}]"#
        );
        assert_eq!(messages(ToolFormat::Mcp, &sample()), Value::Array(sample()));
    }

    #[test]
    fn an_assistant_image_is_text_for_openai_and_odd_messages_do_not_panic() {
        let m = [
            json!({"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": PNG}}),
        ];
        assert_eq!(
            messages(ToolFormat::Openai, &m)[0]["content"],
            "[image: image/png, 12 bytes base64]"
        );
        let odd = [json!(1), json!({"role": 5, "content": "x"})];
        assert_eq!(
            messages(ToolFormat::Gemini, &odd),
            json!([{"role": "user", "parts": []}, {"role": "user", "parts": []}])
        );
    }
}
