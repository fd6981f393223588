//! A tool result over its size budget, made to fit instead of refused (`resultPolicy:
//! "truncate"`): the model sees the head and the tail of the text with a marker naming what was
//! cut and how to read it, and the full text is kept for `results/read`.
//!
//! [`fit`] builds the reduced `CallToolResult`:
//! - the text is every text block (joined by `\n`; the compact JSON of `structuredContent` when
//!   there is no text block), then a one-line rendering of every other non-media block (resource
//!   links, embedded resources with their text), terminal escape codes stripped;
//! - media blocks (image, audio) are kept, in order, while they take at most half the budget;
//!   the others are replaced by their one-line rendering marked "omitted";
//! - when the text is longer than what remains of the budget, its head (about ¾) and tail (¼) are
//!   kept, cut at line ends where one is near, around a marker
//!   `[… N bytes cut; results/read handle=H offset=O length=N totalBytes=T …]`; offsets are bytes
//!   of the UTF-8 text that [`Fitted::full_text`] holds;
//! - `structuredContent` is left out (a line says so), `isError` is kept.
//!
//! The budget counts UTF-8 bytes of the kept text plus the serialised kept media blocks, with
//! [`ENVELOPE_BYTES`] set aside for the rest of the JSON.

use serde_json::{Map, Value};

use super::ansi;
use super::results::render_block;

/// Bytes of the budget set aside for the result's JSON around the text.
pub const ENVELOPE_BYTES: usize = 256;
/// Bytes set aside for the marker.
const MARKER_BYTES: usize = 160;

/// The cut part of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Where the cut part starts, in bytes of the full text.
    pub offset: usize,
    /// How many bytes were cut.
    pub length: usize,
    /// Bytes of the full text.
    pub total_bytes: usize,
}

/// What [`fit`] made.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The reduced `CallToolResult`.
    pub result: Value,
    /// The full text, to store under the handle, when part of it was cut.
    pub full_text: Option<String>,
    pub cut: Option<Cut>,
}

/// Fits `result` (an MCP `CallToolResult`) into `budget` bytes; `handle` is what the marker tells
/// the reader to pass to `results/read` (`None`: the full text will not be kept, and the marker
/// says so).
pub fn fit(result: &Value, budget: usize, handle: Option<&str>) -> Fitted {
    let blocks: &[Value] = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let structured = result.get("structuredContent").filter(|v| !v.is_null());

    let mut lines = texts(blocks, structured);
    let Media {
        kept: media,
        bytes: media_bytes,
        mut omitted,
    } = split_media(blocks, budget / 2, &mut lines);
    if structured.is_some() && blocks.iter().any(|b| text_of(b).is_some()) {
        let size = structured
            .map(|s| {
                serde_json::to_string(s)
                    .map(|t| t.len())
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        omitted.push(format!(
            "[structuredContent ({size} bytes) omitted: over the result budget]"
        ));
    }
    let full = ansi::strip(&lines.join("\n")).into_owned();
    let tail_lines: String = omitted.iter().map(|l| format!("\n{l}")).collect();

    let text_budget = budget.saturating_sub(ENVELOPE_BYTES + media_bytes + tail_lines.len());
    let (mut text, full_text, cut) = if full.len() <= text_budget {
        (full, None, None)
    } else {
        let (text, cut) = shorten(&full, text_budget, handle);
        (text, Some(full), Some(cut))
    };
    text.push_str(&tail_lines);

    let mut content = vec![text_block(text)];
    content.extend(media);
    let mut out = Map::new();
    out.insert("content".into(), Value::Array(content));
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        out.insert("isError".into(), Value::Bool(true));
    }
    Fitted {
        result: Value::Object(out),
        full_text,
        cut,
    }
}

/// The text of every text block; the compact JSON of `structured` when there is none.
fn texts(blocks: &[Value], structured: Option<&Value>) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for block in blocks {
        if let Some(text) = text_of(block) {
            lines.push(text.to_string());
        }
    }
    if lines.is_empty() {
        if let Some(structured) = structured {
            lines.push(serde_json::to_string(structured).unwrap_or_default());
        }
    }
    lines
}

/// The non-text blocks sorted out: media kept while they fit `media_budget`.
struct Media {
    kept: Vec<Value>,
    /// Serialised bytes of `kept`.
    bytes: usize,
    /// One line for each media block left out.
    omitted: Vec<String>,
}

/// Keeps media blocks in order while they fit `media_budget`, renders the other non-text blocks
/// onto `lines`.
fn split_media(blocks: &[Value], media_budget: usize, lines: &mut Vec<String>) -> Media {
    let mut media = Media {
        kept: Vec::new(),
        bytes: 0,
        omitted: Vec::new(),
    };
    for block in blocks {
        if text_of(block).is_some() {
            continue;
        }
        if is_media(block) {
            let size = serde_json::to_string(block)
                .map(|s| s.len())
                .unwrap_or(usize::MAX);
            if media.bytes + size <= media_budget {
                media.bytes += size;
                media.kept.push(block.clone());
            } else {
                media.omitted.push(format!(
                    "{} (omitted: over the result budget)",
                    render_block(block)
                ));
            }
        } else {
            lines.push(render_block(block));
        }
    }
    media
}

/// `full` cut to its head and tail around the marker, to fit `text_budget`.
fn shorten(full: &str, text_budget: usize, handle: Option<&str>) -> (String, Cut) {
    let keep = text_budget.saturating_sub(MARKER_BYTES);
    let (head_end, tail_start) = cut_points(full, keep);
    let cut = Cut {
        offset: head_end,
        length: tail_start - head_end,
        total_bytes: full.len(),
    };
    let marker = match handle {
        Some(handle) => format!(
            "\n[… {} bytes cut; results/read handle={handle} offset={} length={} totalBytes={} …]\n",
            cut.length, cut.offset, cut.length, cut.total_bytes
        ),
        None => format!(
            "\n[… {} bytes cut at offset {} of totalBytes={}; too large to keep for results/read …]\n",
            cut.length, cut.offset, cut.total_bytes
        ),
    };
    let text = format!("{}{marker}{}", &full[..head_end], &full[tail_start..]);
    (text, cut)
}

/// Where the head ends and the tail starts when `keep` bytes of `text` are kept: about ¾ head and
/// ¼ tail, on char boundaries, moved to a line end when one is within the last (first) eighth of
/// the head (tail).
fn cut_points(text: &str, keep: usize) -> (usize, usize) {
    let keep = keep.min(text.len());
    let mut head_end = floor_boundary(text, keep * 3 / 4);
    let mut tail_start = ceil_boundary(text, text.len() - (keep - keep * 3 / 4));
    if let Some(nl) = text[..head_end].rfind('\n') {
        if head_end - nl <= head_end / 8 {
            head_end = nl + 1;
        }
    }
    let tail_len = text.len() - tail_start;
    if let Some(nl) = text[tail_start..].find('\n') {
        if nl < tail_len / 8 {
            tail_start += nl + 1;
        }
    }
    (head_end, tail_start.max(head_end))
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The part of `text` from `offset` of at most `length` bytes, moved to char boundaries (the start
/// down, the end down), as `(start, slice)`.
pub fn read(text: &str, offset: usize, length: usize) -> (usize, &str) {
    let start = floor_boundary(text, offset);
    let end = floor_boundary(text, start.saturating_add(length));
    // A length shorter than the char at `start` still returns that char, so a reader always advances.
    let end = if end == start && start < text.len() {
        ceil_boundary(text, start + 1)
    } else {
        end
    };
    (start, &text[start..end])
}

fn text_of(block: &Value) -> Option<&str> {
    if block.get("type").and_then(Value::as_str) == Some("text") {
        block.get("text").and_then(Value::as_str)
    } else {
        None
    }
}

fn is_media(block: &Value) -> bool {
    matches!(
        block.get("type").and_then(Value::as_str),
        Some("image" | "audio")
    )
}

fn text_block(text: String) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), Value::from("text"));
    out.insert("text".into(), Value::String(text));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text_of_result(fitted: &Fitted) -> &str {
        fitted.result["content"][0]["text"].as_str().unwrap()
    }

    #[test]
    fn small_results_are_only_reshaped() {
        let result = json!({"content": [{"type": "text", "text": "\u{1b}[31mred\u{1b}[0m"}], "isError": true});
        let fitted = fit(&result, 4096, Some("r-1"));
        assert_eq!(
            serde_json::to_string(&fitted.result).unwrap(),
            r#"{"content":[{"text":"red","type":"text"}],"isError":true}"#
        );
        assert_eq!(fitted.cut, None);
        assert_eq!(fitted.full_text, None);
    }

    #[test]
    fn head_and_tail_around_a_marker() {
        let body: String = (0..2000).map(|i| format!("line {i:04}\n")).collect();
        let result = json!({"content": [{"type": "text", "text": body}]});
        let fitted = fit(&result, 4096, Some("r-7"));
        let text = text_of_result(&fitted);
        let cut = fitted.cut.unwrap();
        assert!(text.len() <= 4096 - ENVELOPE_BYTES, "{}", text.len());
        assert!(text.starts_with("line 0000\nline 0001\n"));
        assert!(text.ends_with("line 1999\n"));
        assert_eq!(cut.total_bytes, body.len());
        assert_eq!(
            text,
            format!(
                "{}\n[… {} bytes cut; results/read handle=r-7 offset={} length={} totalBytes={} …]\n{}",
                &body[..cut.offset],
                cut.length,
                cut.offset,
                cut.length,
                body.len(),
                &body[cut.offset + cut.length..]
            )
        );
        // Cut at line ends.
        assert!(body[..cut.offset].ends_with('\n'));
        assert!(body[..cut.offset + cut.length].ends_with('\n'));
        assert_eq!(fitted.full_text.as_deref(), Some(body.as_str()));
        // Nothing is lost: head + cut + tail is the whole.
        let (start, middle) = read(&body, cut.offset, cut.length);
        assert_eq!(start, cut.offset);
        assert_eq!(
            format!(
                "{}{middle}{}",
                &body[..cut.offset],
                &body[cut.offset + cut.length..]
            ),
            body
        );
    }

    #[test]
    fn without_a_handle_the_marker_says_so() {
        let fitted = fit(
            &json!({"content": [{"type": "text", "text": "z".repeat(5000)}]}),
            1024,
            None,
        );
        let cut = fitted.cut.unwrap();
        assert!(text_of_result(&fitted).contains(&format!(
            "[… {} bytes cut at offset {} of totalBytes=5000; too large to keep for results/read …]",
            cut.length, cut.offset
        )));
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let body = "é".repeat(10_000);
        let fitted = fit(
            &json!({"content": [{"type": "text", "text": body}]}),
            2048,
            Some("h"),
        );
        let cut = fitted.cut.unwrap();
        assert!(
            body.is_char_boundary(cut.offset) && body.is_char_boundary(cut.offset + cut.length)
        );
        assert!(text_of_result(&fitted).len() <= 2048);
    }

    #[test]
    fn media_kept_while_they_fit_structured_content_left_out() {
        let big_image = "A".repeat(3000);
        let result = json!({
            "content": [
                {"type": "text", "text": "x".repeat(10_000)},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
                {"type": "image", "data": big_image, "mimeType": "image/jpeg"},
                {"type": "resource_link", "uri": "file:///a", "name": "a"}
            ],
            "structuredContent": {"k": "v"}
        });
        let fitted = fit(&result, 4096, Some("h"));
        let content = fitted.result["content"].as_array().unwrap();
        assert_eq!(content.len(), 2);
        assert_eq!(content[1]["data"], "aGk=");
        let text = content[0]["text"].as_str().unwrap();
        assert!(text.ends_with("[resource: a file:///a]\n[image: image/jpeg, 3000 bytes base64] (omitted: over the result budget)\n[structuredContent (9 bytes) omitted: over the result budget]"), "{text}");
        // The resource link is part of the (cut) text.
        assert!(fitted
            .full_text
            .as_deref()
            .unwrap()
            .ends_with("\n[resource: a file:///a]"));
        assert!(fitted.result.get("structuredContent").is_none());
    }

    #[test]
    fn structured_content_alone_is_the_text() {
        let result = json!({"content": [], "structuredContent": {"rows": vec!["abc"; 2000]}});
        let fitted = fit(&result, 2048, Some("h"));
        assert!(fitted
            .full_text
            .as_deref()
            .unwrap()
            .starts_with(r#"{"rows":["abc","#));
        assert!(text_of_result(&fitted).starts_with(r#"{"rows":["abc","#));
    }

    #[test]
    fn tiny_budgets_do_not_panic() {
        let result = json!({"content": [{"type": "text", "text": "y".repeat(5000)}]});
        for budget in [0, 1, 100, 300, 500] {
            let fitted = fit(&result, budget, Some("h"));
            assert!(fitted.cut.is_some());
        }
        let fitted = fit(&json!(null), 0, None);
        assert_eq!(
            serde_json::to_string(&fitted.result).unwrap(),
            r#"{"content":[{"text":"","type":"text"}]}"#
        );
    }

    #[test]
    fn reading_moves_to_char_boundaries() {
        let text = "aé€😀z";
        assert_eq!(read(text, 0, 1), (0, "a"));
        assert_eq!(read(text, 2, 2), (1, "é"));
        assert_eq!(read(text, 3, 1), (3, "€"));
        assert_eq!(read(text, 6, 100), (6, "😀z"));
        assert_eq!(read(text, 100, 5), (11, ""));
        assert_eq!(read(text, 0, usize::MAX), (0, text));
    }
}
