//! A server's message that is not JSON-RPC: the check an HTTP answer passes before it is
//! delivered (a broken answer fails its request alone, see [`super::http`]), and the excerpt of
//! the offending bytes that both this failure and the stdio reader's quote.

use super::error::TransportError;
use crate::jsonrpc::{Incoming, NULL_ID_ERROR};

/// Most bytes of an offending message quoted in an error.
pub const EXCERPT_BYTES: usize = 120;

/// Why `data` is not a JSON-RPC message, or `None` when it is one. An error response with a null
/// id counts as one: it is valid, and the reader drops it as answering nothing.
pub fn not_a_message(data: &[u8]) -> Option<String> {
    match Incoming::<serde_json::Value>::parse(data) {
        Ok(Ok(_)) => None,
        Ok(Err(not_rpc)) if not_rpc.reason == NULL_ID_ERROR => None,
        Ok(Err(not_rpc)) => Some(format!("JSON but not JSON-RPC 2.0 ({})", not_rpc.reason)),
        Err(syntax) => Some(format!("not JSON ({syntax})")),
    }
}

/// The failure of the request whose answer `data` is, when `data` is not a JSON-RPC message.
pub fn check_answer(data: &[u8], during: &'static str) -> Result<(), TransportError> {
    match not_a_message(data) {
        None => Ok(()),
        Some(reason) => Err(TransportError::Unparsable {
            during,
            reason,
            bytes: data.len(),
            excerpt: escaped_start(data),
        }),
    }
}

/// The start of an offending message, byte for byte (`data.excerpt`): printable text as is, every
/// other byte — control characters, a byte-order mark, invalid UTF-8 — as `\xNN`, so what a
/// launcher printed can be read exactly.
pub fn escaped_start(line: &[u8]) -> String {
    let cut = &line[..line.len().min(EXCERPT_BYTES)];
    let mut out = String::new();
    for chunk in cut.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\u{feff}' => out.push_str("\\xef\\xbb\\xbf"),
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if line.len() > EXCERPT_BYTES {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_shows_every_byte() {
        assert_eq!(escaped_start(b"npm WARN exec"), "npm WARN exec");
        assert_eq!(
            escaped_start(b"\xef\xbb\xbf{\"a\":1}\t\x01\xff"),
            "\\xef\\xbb\\xbf{\"a\":1}\\x09\\x01\\xff"
        );
        assert_eq!(escaped_start("caf\u{e9} \\".as_bytes()), "caf\u{e9} \\\\");
        let long = vec![b'x'; 200];
        assert_eq!(escaped_start(&long), format!("{}…", "x".repeat(120)));
    }

    #[test]
    fn only_a_json_rpc_message_passes() {
        assert!(not_a_message(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_none());
        assert!(
            not_a_message(br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#)
                .is_none()
        );
        let html = not_a_message(b"<html>502 Bad Gateway</html>").unwrap_or_default();
        assert!(html.starts_with("not JSON (expected value"), "{html}");
        let array = not_a_message(b"[1]").unwrap_or_default();
        assert!(
            array.starts_with("JSON but not JSON-RPC 2.0 (a message must be"),
            "{array}"
        );
    }

    #[test]
    fn a_broken_answer_is_a_protocol_error_with_its_excerpt() {
        let e = check_answer(b"<html>\x01", "POST tools/call")
            .err()
            .map(|e| e.for_server("web"));
        let e = e.expect("not JSON");
        assert_eq!(e.code, crate::error::ErrorCode::ProtocolError);
        assert_eq!(e.details["excerpt"], "<html>\\x01");
        assert_eq!(e.details["server"], "web");
        assert!(
            e.message.starts_with(
                "server `web`: POST tools/call: the answer is not JSON (expected value"
            ),
            "{}",
            e.message
        );
        assert!(!e.message.contains("stdout"), "{}", e.message);
    }
}
