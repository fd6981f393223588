//! The tests of result conversion: each provider format's exact wire JSON.

use super::*;
use serde_json::json;

fn output(format: ToolFormat, result: &Value) -> String {
    serde_json::to_string(&convert_result(format, result).output).unwrap()
}

/// One block of every kind, text blocks first and last.
fn mixed() -> Value {
    json!({
        "content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///r.pdf", "name": "report", "mimeType": "application/pdf"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside", "mimeType": "text/plain"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AQID", "mimeType": "application/octet-stream"}},
            {"type": "future", "x": 1},
            {"type": "text", "text": "last"}
        ]
    })
}

#[test]
fn common_fields() {
    let result = json!({
        "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "", "mimeType": "image/png"}, {"type": "text", "text": "b"}],
        "structuredContent": {"k": 1},
        "isError": true
    });
    let out = convert_result(ToolFormat::Openai, &result);
    assert!(out.is_error);
    assert_eq!(out.text, "a\nb");
    assert_eq!(out.structured_content, Some(json!({"k": 1})));
    assert_eq!(
        serde_json::to_string(&out.content).unwrap(),
        r#"[{"text":"a","type":"text"},{"data":"","mimeType":"image/png","type":"image"},{"text":"b","type":"text"}]"#
    );
}

#[test]
fn common_fields_tolerate_odd_input() {
    for result in [
        json!(null),
        json!("text"),
        json!([1]),
        json!({"content": "nope", "isError": "true", "structuredContent": null}),
        json!({"content": {"type": "text", "text": "not in an array"}, "isError": 1}),
    ] {
        for format in ToolFormat::ALL {
            let out = convert_result(format, &result);
            assert!(!out.is_error);
            assert_eq!(out.content, json!([]));
            assert_eq!(out.structured_content, None);
            assert_eq!(out.text, "");
            let expected = match format {
                ToolFormat::Openai | ToolFormat::OpenaiResponses => json!(""),
                ToolFormat::Anthropic => json!([]),
                ToolFormat::Gemini => json!({"response": {"output": ""}}),
                ToolFormat::Mcp => result.clone(),
            };
            assert_eq!(out.output, expected, "{format} {result}");
        }
    }
    assert!(!convert_result(ToolFormat::Openai, &json!({"isError": false})).is_error);
}

#[test]
fn openai_text_only() {
    let result = json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "structuredContent": {"ignored": true}});
    assert_eq!(output(ToolFormat::Openai, &result), r#""a\nb""#);
    assert_eq!(output(ToolFormat::OpenaiResponses, &result), r#""a\nb""#);
}

#[test]
fn openai_text_then_every_rendering() {
    let expected = concat!(
        r#""first\nlast"#,
        r#"\n[image: image/png, 8 bytes base64]"#,
        r#"\n[audio: audio/wav, 4 bytes base64]"#,
        r#"\n[resource: report file:///r.pdf] (application/pdf)"#,
        r#"\n[resource file:///a.txt]\ninside"#,
        r#"\n[resource file:///b.bin: application/octet-stream, blob]"#,
        r#"\n{\"type\":\"future\",\"x\":1}""#,
    );
    assert_eq!(output(ToolFormat::Openai, &mixed()), expected);
    assert_eq!(
        convert_result(ToolFormat::Openai, &mixed()).text,
        "first\nlast"
    );
}

#[test]
fn openai_responses_carries_images_as_data_urls() {
    assert_eq!(
        output(ToolFormat::OpenaiResponses, &mixed()),
        concat!(
            r#"[{"text":"first\nlast"#,
            r#"\n[audio: audio/wav, 4 bytes base64]"#,
            r#"\n[resource: report file:///r.pdf] (application/pdf)"#,
            r#"\n[resource file:///a.txt]\ninside"#,
            r#"\n[resource file:///b.bin: application/octet-stream, blob]"#,
            r#"\n{\"type\":\"future\",\"x\":1}","type":"input_text"},"#,
            r#"{"image_url":"data:image/png;base64,aGVsbG8=","type":"input_image"}]"#,
        )
    );
    // Only images: no empty text part. An image type the API does not take stays text.
    let result = json!({"content": [
        {"type": "image", "data": "AA==", "mimeType": "image/webp"},
        {"type": "image", "data": "AA==", "mimeType": "image/svg+xml"}
    ]});
    assert_eq!(
        output(ToolFormat::OpenaiResponses, &result),
        r#"[{"text":"[image: image/svg+xml, 4 bytes base64]","type":"input_text"},{"image_url":"data:image/webp;base64,AA==","type":"input_image"}]"#
    );
    let result = json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]});
    assert_eq!(
        output(ToolFormat::OpenaiResponses, &result),
        r#"[{"image_url":"data:image/png;base64,AA==","type":"input_image"}]"#
    );
}

#[test]
fn gemini_function_response() {
    assert_eq!(
        output(ToolFormat::Gemini, &mixed()),
        concat!(
            r#"{"parts":[{"inlineData":{"data":"aGVsbG8=","mimeType":"image/png"}}],"#,
            r#""response":{"output":"first\nlast"#,
            r#"\n[audio: audio/wav, 4 bytes base64]"#,
            r#"\n[resource: report file:///r.pdf] (application/pdf)"#,
            r#"\n[resource file:///a.txt]\ninside"#,
            r#"\n[resource file:///b.bin: application/octet-stream, blob]"#,
            r#"\n{\"type\":\"future\",\"x\":1}"}}"#,
        )
    );
    let error = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
    assert_eq!(
        output(ToolFormat::Gemini, &error),
        r#"{"response":{"error":"boom"}}"#
    );
    // structuredContent without text is sent as the object itself, images still in parts.
    let result = json!({
        "content": [{"type": "image", "data": "AA==", "mimeType": "image/jpeg"}],
        "structuredContent": {"rows": [1, 2]}
    });
    assert_eq!(
        output(ToolFormat::Gemini, &result),
        r#"{"parts":[{"inlineData":{"data":"AA==","mimeType":"image/jpeg"}}],"response":{"output":{"rows":[1,2]}}}"#
    );
    // With text, the text is the output (structuredContent stays in the common fields).
    let result = json!({"content": [{"type": "text", "text": "2 rows"}], "structuredContent": {"rows": [1, 2]}});
    assert_eq!(
        output(ToolFormat::Gemini, &result),
        r#"{"response":{"output":"2 rows"}}"#
    );
}

#[test]
fn openai_structured_when_no_text() {
    let result = json!({"content": [], "structuredContent": {"b": [1, 2], "a": "x"}});
    assert_eq!(
        output(ToolFormat::Openai, &result),
        r#""{\"a\":\"x\",\"b\":[1,2]}""#
    );
    // Non-text blocks are still appended after the structured JSON.
    let result = json!({
        "content": [{"type": "image", "data": "AA==", "mimeType": "image/gif"}],
        "structuredContent": [true]
    });
    assert_eq!(
        output(ToolFormat::Openai, &result),
        r#""[true]\n[image: image/gif, 4 bytes base64]""#
    );
    // A scalar structuredContent is JSON too.
    assert_eq!(
        output(ToolFormat::Openai, &json!({"structuredContent": "s"})),
        r#""\"s\"""#
    );
}

#[test]
fn openai_renderings_only() {
    let result = json!({"content": [
        {"type": "image", "data": "aGVsbG8="},
        {"type": "resource_link", "uri": "https://x.test/y"},
        {"type": "resource_link", "uri": "u", "name": ""},
        {"type": "resource", "resource": {"uri": "mem://z"}},
        {"type": "resource", "resource": "odd"},
        {"type": "text", "text": 5},
        "bare"
    ]});
    assert_eq!(
        output(ToolFormat::Openai, &result),
        concat!(
            r#""[image: unknown, 8 bytes base64]"#,
            r#"\n[resource: https://x.test/y https://x.test/y]"#,
            r#"\n[resource: u u]"#,
            r#"\n[resource mem://z: unknown, blob]"#,
            r#"\n{\"resource\":\"odd\",\"type\":\"resource\"}"#,
            r#"\n{\"text\":5,\"type\":\"text\"}"#,
            r#"\n\"bare\"""#,
        )
    );
    assert_eq!(convert_result(ToolFormat::Openai, &result).text, "");
}

#[test]
fn openai_empty_text_block_still_counts_as_text() {
    let result = json!({"content": [{"type": "text", "text": ""}], "structuredContent": {"a": 1}});
    assert_eq!(output(ToolFormat::Openai, &result), r#""""#);
}

#[test]
fn anthropic_blocks() {
    assert_eq!(
        output(ToolFormat::Anthropic, &mixed()),
        concat!(
            r#"[{"text":"first","type":"text"},"#,
            r#"{"source":{"data":"aGVsbG8=","media_type":"image/png","type":"base64"},"type":"image"},"#,
            r#"{"text":"[audio: audio/wav, 4 bytes base64]","type":"text"},"#,
            r#"{"text":"[resource: report file:///r.pdf] (application/pdf)","type":"text"},"#,
            r#"{"text":"[resource file:///a.txt]\ninside","type":"text"},"#,
            r#"{"text":"[resource file:///b.bin: application/octet-stream, blob]","type":"text"},"#,
            r#"{"text":"{\"type\":\"future\",\"x\":1}","type":"text"},"#,
            r#"{"text":"last","type":"text"}]"#,
        )
    );
}

#[test]
fn anthropic_images_it_cannot_carry_become_text() {
    let result = json!({"content": [
        {"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"},
        {"type": "image", "mimeType": "image/png"},
        {"type": "image", "data": "AA==", "mimeType": "image/jpeg"},
        {"type": "text", "text": ""}
    ]});
    assert_eq!(
        output(ToolFormat::Anthropic, &result),
        concat!(
            r#"[{"text":"[image: image/svg+xml, 8 bytes base64]","type":"text"},"#,
            r#"{"text":"[image: image/png, 0 bytes base64]","type":"text"},"#,
            r#"{"source":{"data":"AA==","media_type":"image/jpeg","type":"base64"},"type":"image"}]"#,
        )
    );
}

#[test]
fn anthropic_structured_only_when_empty() {
    let result = json!({"content": [], "structuredContent": {"z": null, "a": 1}});
    assert_eq!(
        output(ToolFormat::Anthropic, &result),
        r#"[{"text":"{\"a\":1,\"z\":null}","type":"text"}]"#
    );
    // Empty text blocks are dropped, so this counts as empty too.
    let result = json!({"content": [{"type": "text", "text": ""}], "structuredContent": 3});
    assert_eq!(
        output(ToolFormat::Anthropic, &result),
        r#"[{"text":"3","type":"text"}]"#
    );
    let result = json!({"content": [{"type": "text", "text": "t"}], "structuredContent": 3});
    assert_eq!(
        output(ToolFormat::Anthropic, &result),
        r#"[{"text":"t","type":"text"}]"#
    );
    assert_eq!(output(ToolFormat::Anthropic, &json!({"content": []})), "[]");
}

#[test]
fn mcp_is_raw() {
    let result = json!({"content": [{"type": "text", "text": "x"}], "isError": false, "_meta": {"m": 1}, "extra": [1]});
    assert_eq!(
        output(ToolFormat::Mcp, &result),
        r#"{"_meta":{"m":1},"content":[{"text":"x","type":"text"}],"extra":[1],"isError":false}"#
    );
    let out = convert_result(ToolFormat::Mcp, &result);
    assert_eq!(out.text, "x");
    assert!(!out.is_error);
}
