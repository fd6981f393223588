//! Terminal escape codes stripped from text: colour and cursor sequences (CSI, `ESC [ … m`),
//! hyperlinks and titles (OSC, `ESC ] … BEL` or `ESC ] … ESC \`), device strings (DCS, SOS, PM,
//! APC), two-character escapes, and the 8-bit CSI (U+009B). Tools that wrap command-line programs
//! pass these through; to a model they are noise that costs tokens.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
const C1_CSI: char = '\u{9b}';

/// `text` without terminal escape sequences (borrowed when there were none).
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains([ESC, C1_CSI]) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | 'X' | '^' | '_') => skip_string(&mut chars),
                // nF escapes: intermediates (0x20–0x2F) then one final char.
                Some(' '..='/') => {
                    while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
                    chars.next();
                }
                // Fp, Fe, Fs: one char after ESC. A lone ESC at the end is dropped too.
                Some(_) | None => {}
            },
            C1_CSI => skip_csi(&mut chars),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Parameters (0x30–0x3F), intermediates (0x20–0x2F), one final char (0x40–0x7E).
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.next_if(|c| ('0'..='?').contains(c)).is_some() {}
    while chars.next_if(|c| (' '..='/').contains(c)).is_some() {}
    chars.next_if(|c| ('@'..='~').contains(c));
}

/// Up to and including BEL or ST (`ESC \`).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            BEL => return,
            ESC => {
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(strip("plain ✓ text\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn sequences_are_removed() {
        let cases = [
            ("\u{1b}[1;31mred\u{1b}[0m done", "red done"),
            ("\u{1b}[2K\u{1b}[1Gprogress 50%\r", "progress 50%\r"),
            (
                "\u{1b}]8;;https://x.test\u{7}link\u{1b}]8;;\u{1b}\\ after",
                "link after",
            ),
            ("\u{1b}]0;title\u{1b}\\text", "text"),
            ("\u{1b}Pq#0;2;0;0;0\u{1b}\\sixel gone", "sixel gone"),
            ("a\u{1b}(Bb\u{1b}=c\u{1b}7d", "abcd"),
            ("\u{9b}32mgreen", "green"),
            ("\u{1b}[?25l hidden cursor", " hidden cursor"),
            ("unterminated \u{1b}]0;title", "unterminated "),
            ("lone at end\u{1b}", "lone at end"),
            ("\u{1b}[", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(strip(input), expected, "{input:?}");
        }
    }
}
