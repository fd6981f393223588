//! Tool results: one MCP `CallToolResult` (as the server sent it) becomes
//! a [`CallOutput`] — the common fields every host wants (`is_error`, raw
//! `content`, `structured_content`, joined `text`) plus `output`, the payload
//! in the requested provider's shape:
//!
//! - openai: one string (a chat `tool` message carries text only);
//! - openai-responses: one string, or — when there are images the API takes — an array of
//!   `input_text` and `input_image` parts (images as `data:` URLs) for `function_call_output`;
//! - anthropic: an array of `tool_result` content blocks (images as base64 `source` blocks); the
//!   host sets the block's `is_error` from [`CallOutput::is_error`];
//! - gemini: a `FunctionResponse` body, `{"response": {"output": …}}` or, for an error result,
//!   `{"response": {"error": …}}` (Gemini's documented keys), plus `parts` with `inlineData` images;
//! - mcp: the result unchanged (`isError` included).
//!
//! OpenAI has no error flag on a function output: [`CallOutput::is_error`] is there for the host.
//!
//! Nothing the server sent is silently dropped from `output`: content blocks
//! a provider cannot carry natively are rendered as short readable text
//! (see [`render_block`]).

use serde_json::{Map, Value};

use super::format::ToolFormat;

/// Image media types the Anthropic API accepts in an image block; any other
/// image is rendered as text rather than failing the host's next request.
pub(super) const ANTHROPIC_IMAGE_TYPES: &[&str] =
    &["image/jpeg", "image/png", "image/gif", "image/webp"];
/// Image types the OpenAI Responses API takes as `input_image` data URLs.
pub(super) const OPENAI_IMAGE_TYPES: &[&str] =
    &["image/jpeg", "image/png", "image/gif", "image/webp"];
/// Image types Gemini takes as `inlineData` in a function response.
pub(super) const GEMINI_IMAGE_TYPES: &[&str] = &[
    "image/jpeg",
    "image/png",
    "image/webp",
    "image/heic",
    "image/heif",
];

/// A converted tool result.
#[derive(Clone, Debug, PartialEq)]
pub struct CallOutput {
    /// `result.isError == true`.
    pub is_error: bool,
    /// `result.content` if it is an array, else `[]`.
    pub content: Value,
    /// `result.structuredContent` if present and not null.
    pub structured_content: Option<Value>,
    /// The `text` of every text block, joined with `"\n"`.
    pub text: String,
    /// The payload in the requested format (see the module doc).
    pub output: Value,
}

/// `result` is the MCP CallToolResult as the server sent it.
pub fn convert_result(format: ToolFormat, result: &Value) -> CallOutput {
    convert_owned(format, result.clone())
}

/// [`convert_result`] of a result the caller gives away: its `content` and `structuredContent`
/// move into the [`CallOutput`] instead of being copied (the per-call path).
pub fn convert_owned(format: ToolFormat, mut result: Value) -> CallOutput {
    let (is_error, text, output) = converted_parts(format, &result);
    let output = output.unwrap_or(Value::Null);
    let (content, structured_content) = if format == ToolFormat::Mcp {
        // `output` is the result itself: the common fields are copies of its members.
        let content = match result.get("content") {
            Some(Value::Array(blocks)) => Value::Array(blocks.clone()),
            _ => Value::Array(Vec::new()),
        };
        let structured = result
            .get("structuredContent")
            .filter(|v| !v.is_null())
            .cloned();
        (content, structured)
    } else {
        match result.as_object_mut() {
            Some(members) => (
                members
                    .remove("content")
                    .filter(Value::is_array)
                    .unwrap_or_else(|| Value::Array(Vec::new())),
                members.remove("structuredContent").filter(|v| !v.is_null()),
            ),
            None => (Value::Array(Vec::new()), None),
        }
    };
    let output = if format == ToolFormat::Mcp {
        result
    } else {
        output
    };
    CallOutput {
        is_error,
        content,
        structured_content,
        text,
        output,
    }
}

/// `isError`, the joined text and — for every format but mcp, whose output is the result itself —
/// the output, all read from the borrowed result.
fn converted_parts(format: ToolFormat, result: &Value) -> (bool, String, Option<Value>) {
    let blocks: &[Value] = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let structured_content = result.get("structuredContent").filter(|v| !v.is_null());
    let texts: Vec<&str> = blocks.iter().filter_map(text_of).collect();
    let text = texts.join("\n");

    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let output = match format {
        ToolFormat::Openai => Some(Value::String(text_output(
            blocks,
            &texts,
            structured_content,
            |_| false,
        ))),
        ToolFormat::OpenaiResponses => Some({
            let images: Vec<Value> = blocks
                .iter()
                .filter_map(|b| media(b, OPENAI_IMAGE_TYPES))
                .map(|(mime, data)| {
                    let mut part = Map::new();
                    part.insert("type".into(), Value::from("input_image"));
                    part.insert(
                        "image_url".into(),
                        Value::String(format!("data:{mime};base64,{data}")),
                    );
                    Value::Object(part)
                })
                .collect();
            if images.is_empty() {
                Value::String(text_output(blocks, &texts, structured_content, |_| false))
            } else {
                let text = text_output(blocks, &texts, structured_content, |b| {
                    media(b, OPENAI_IMAGE_TYPES).is_some()
                });
                let mut parts = Vec::new();
                if !text.is_empty() {
                    let mut part = Map::new();
                    part.insert("type".into(), Value::from("input_text"));
                    part.insert("text".into(), Value::String(text));
                    parts.push(Value::Object(part));
                }
                parts.extend(images);
                Value::Array(parts)
            }
        }),
        ToolFormat::Anthropic => Some({
            let mut out: Vec<Value> = blocks.iter().filter_map(anthropic_block).collect();
            if out.is_empty() {
                if let Some(structured) = structured_content {
                    out.push(anthropic_text(compact(structured)));
                }
            }
            Value::Array(out)
        }),
        ToolFormat::Gemini => Some(gemini_output(blocks, &texts, structured_content, is_error)),
        ToolFormat::Mcp => None,
    };
    (is_error, text, output)
}

/// The text form (openai; the text part of the others): every text block joined with `"\n"` (or
/// the compact JSON of `structuredContent` when there is none), then the rendering of every other
/// block that `carried` does not take out (see [`render_block`]).
fn text_output(
    blocks: &[Value],
    texts: &[&str],
    structured: Option<&Value>,
    carried: impl Fn(&Value) -> bool,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !texts.is_empty() {
        parts.push(texts.join("\n"));
    } else if let Some(structured) = structured {
        parts.push(compact(structured));
    }
    parts.extend(
        blocks
            .iter()
            .filter(|block| text_of(block).is_none() && !carried(block))
            .map(render_block),
    );
    parts.join("\n")
}

/// Gemini's `FunctionResponse` minus `name`/`id`: `{"response": {"output" | "error": …},
/// "parts"?: [{"inlineData": {"mimeType", "data"}}]}`. The value is the text form, or the
/// `structuredContent` itself when there is no text block; images Gemini takes go in `parts`.
fn gemini_output(
    blocks: &[Value],
    texts: &[&str],
    structured: Option<&Value>,
    is_error: bool,
) -> Value {
    let carried = |b: &Value| media(b, GEMINI_IMAGE_TYPES).is_some();
    let value = match structured {
        Some(structured)
            if texts.is_empty() && !blocks.iter().any(|b| text_of(b).is_none() && !carried(b)) =>
        {
            structured.clone()
        }
        _ => Value::String(text_output(blocks, texts, structured, carried)),
    };
    let mut response = Map::new();
    response.insert(if is_error { "error" } else { "output" }.into(), value);
    let mut out = Map::new();
    out.insert("response".into(), Value::Object(response));
    let parts: Vec<Value> = blocks
        .iter()
        .filter_map(|b| media(b, GEMINI_IMAGE_TYPES))
        .map(|(mime, data)| {
            let mut inline = Map::new();
            inline.insert("mimeType".into(), Value::from(mime));
            inline.insert("data".into(), Value::from(data));
            let mut part = Map::new();
            part.insert("inlineData".into(), Value::Object(inline));
            Value::Object(part)
        })
        .collect();
    if !parts.is_empty() {
        out.insert("parts".into(), Value::Array(parts));
    }
    Value::Object(out)
}

/// `(mimeType, data)` of an image block whose type is in `accepted`.
pub(super) fn media<'a>(block: &'a Value, accepted: &[&str]) -> Option<(&'a str, &'a str)> {
    if block.get("type").and_then(Value::as_str) != Some("image") {
        return None;
    }
    let data = block
        .get("data")
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())?;
    let mime = block
        .get("mimeType")
        .and_then(Value::as_str)
        .filter(|m| accepted.contains(m))?;
    Some((mime, data))
}

/// A readable one-line (or, for embedded text resources, multi-line)
/// rendering of a non-text content block:
///
/// - image → `[image: <mimeType>, <n> bytes base64]`
/// - audio → `[audio: <mimeType>, <n> bytes base64]`
/// - resource_link → `[resource: <name or uri> <uri>]`, then ` (<mimeType>)` if present
/// - resource with text → `[resource <uri>]\n<text>`
/// - resource without text → `[resource <uri>: <mimeType>, blob]`
/// - anything else (including a malformed text or resource block) → its compact JSON
///
/// `<n>` is the length of the base64 `data` string; a missing `mimeType`
/// reads `unknown`.
pub fn render_block(block: &Value) -> String {
    fn field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
        value.get(key).and_then(Value::as_str)
    }
    fn mime(value: &Value) -> &str {
        field(value, "mimeType").unwrap_or("unknown")
    }
    match field(block, "type") {
        Some(kind @ ("image" | "audio")) => {
            let bytes = field(block, "data").map_or(0, str::len);
            format!("[{kind}: {}, {bytes} bytes base64]", mime(block))
        }
        Some("resource_link") => {
            let uri = field(block, "uri").unwrap_or_default();
            let label = field(block, "name")
                .filter(|n| !n.is_empty())
                .unwrap_or(uri);
            let mut out = format!("[resource: {label} {uri}]");
            if let Some(mime_type) = field(block, "mimeType") {
                out.push_str(&format!(" ({mime_type})"));
            }
            out
        }
        Some("resource") => match block.get("resource").filter(|r| r.is_object()) {
            Some(resource) => {
                let uri = field(resource, "uri").unwrap_or_default();
                match field(resource, "text") {
                    Some(text) => format!("[resource {uri}]\n{text}"),
                    None => format!("[resource {uri}: {}, blob]", mime(resource)),
                }
            }
            None => compact(block),
        },
        _ => compact(block),
    }
}

/// The text of a well-formed text block (`{"type":"text","text":<string>}`).
pub(super) fn text_of(block: &Value) -> Option<&str> {
    if block.get("type").and_then(Value::as_str) == Some("text") {
        block.get("text").and_then(Value::as_str)
    } else {
        None
    }
}

/// One MCP content block as an Anthropic `tool_result` content block; `None`
/// for an empty text block (the API rejects empty text blocks).
pub(super) fn anthropic_block(block: &Value) -> Option<Value> {
    if let Some(text) = text_of(block) {
        return (!text.is_empty()).then(|| anthropic_text(text.to_string()));
    }
    if block.get("type").and_then(Value::as_str) == Some("image") {
        let data = block.get("data").and_then(Value::as_str);
        let media_type = block
            .get("mimeType")
            .and_then(Value::as_str)
            .filter(|m| ANTHROPIC_IMAGE_TYPES.contains(m));
        if let (Some(data), Some(media_type)) = (data, media_type) {
            let mut source = Map::new();
            source.insert("type".into(), Value::from("base64"));
            source.insert("media_type".into(), Value::from(media_type));
            source.insert("data".into(), Value::from(data));
            let mut out = Map::new();
            out.insert("type".into(), Value::from("image"));
            out.insert("source".into(), Value::Object(source));
            return Some(Value::Object(out));
        }
    }
    Some(anthropic_text(render_block(block)))
}

fn anthropic_text(text: String) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), Value::from("text"));
    out.insert("text".into(), Value::String(text));
    Value::Object(out)
}

/// Compact JSON text of a value (sorted keys: see the `convert` module doc).
fn compact(value: &Value) -> String {
    // Serialising a `Value` cannot fail: its map keys are always strings.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests;
