//! The one Server-Sent Events parser of both HTTP transports, bounded before it buffers.
//!
//! Pure and push-driven: feed it chunks as they arrive, it yields complete events. Follows the WHATWG
//! event-stream grammar (leading BOM, LF / CR / CRLF line ends, `:` comments, `event`, `data`, `id`,
//! `retry`, multi-line `data`), decoding UTF-8 per complete line so a code point split across chunks
//! is never mangled. The bound: a line, or the `data` of one event, over `max_bytes` is an error at the
//! moment the byte count passes the bound, so an endless line without a newline costs at most
//! `max_bytes` of memory (the error is [`TransportError::TooLong`]). Work per byte is constant (no
//! rescanning), so long lines cost linear time.

use super::TransportError;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field; `message` when absent.
    pub name: String,
    /// The `data` lines joined with `\n`. Never empty: an event without data is not dispatched.
    pub data: String,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub struct SseParser {
    max_bytes: usize,
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// A CR ended the last line: an LF right after it (maybe in the next chunk) belongs to it.
    after_cr: bool,
    /// The first line has not been completed yet (it may start with a BOM).
    first_line: bool,
    data: String,
    name: Option<String>,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
}

impl SseParser {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            data: String::new(),
            name: None,
            last_event_id: None,
            retry_ms: None,
        }
    }

    /// The last `id` seen (also set by events that were not dispatched, such as a priming event).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// The last valid `retry` value, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds one chunk; complete events are appended to `out`.
    pub fn feed(
        &mut self,
        mut chunk: &[u8],
        out: &mut Vec<SseEvent>,
    ) -> Result<(), TransportError> {
        if chunk.is_empty() {
            return Ok(());
        }
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        while !chunk.is_empty() {
            match memchr::memchr2(b'\n', b'\r', chunk) {
                None => {
                    self.extend_line(chunk)?;
                    return Ok(());
                }
                Some(end) => {
                    self.extend_line(&chunk[..end])?;
                    let cr = chunk[end] == b'\r';
                    chunk = &chunk[end + 1..];
                    if cr {
                        match chunk.first() {
                            Some(b'\n') => chunk = &chunk[1..],
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                    self.end_line(out)?;
                }
            }
        }
        Ok(())
    }

    fn extend_line(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        // Checked before copying: the buffer never holds more than the bound.
        if self.line.len() + bytes.len() > self.max_bytes + self.bom_allowance() {
            return Err(TransportError::TooLong {
                limit: self.max_bytes,
            });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn bom_allowance(&self) -> usize {
        if self.first_line {
            BOM.len()
        } else {
            0
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), TransportError> {
        let mut line = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.first_line) && line.starts_with(BOM) {
            line.drain(..BOM.len());
        }
        let result = self.process_line(&line, out);
        // Keep the allocation for the next line.
        line.clear();
        self.line = line;
        result
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), TransportError> {
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                // Checked on the decoded text, which is what is kept: each invalid byte becomes
                // U+FFFD (three bytes), so the raw length could let the data grow to 3× the bound.
                let value = String::from_utf8_lossy(value);
                if self.data.len() + value.len() + 1 > self.max_bytes {
                    return Err(TransportError::TooLong {
                        limit: self.max_bytes,
                    });
                }
                self.data.push_str(&value);
                self.data.push('\n');
            }
            b"event" => self.name = Some(String::from_utf8_lossy(value).into_owned()),
            b"id" if !value.contains(&0) => {
                self.last_event_id = Some(String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Saturates instead of overflowing on absurd values; the caller clamps anyway.
                self.retry_ms = Some(value.iter().fold(0u64, |n, d| {
                    n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                }));
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let name = self.name.take();
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        // Unlike a browser, an event whose data is empty is dropped too: in MCP it carries no message
        // (servers send one to prime a stream with an id).
        if data.is_empty() {
            return;
        }
        out.push(SseEvent {
            name: name
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "message".to_owned()),
            data,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limit a feed tripped, so results compare with `==`.
    fn limit_of(e: TransportError) -> usize {
        match e {
            TransportError::TooLong { limit } => limit,
            other => panic!("not a bound: {other}"),
        }
    }

    fn parse_all(input: &[u8], max: usize) -> Result<Vec<SseEvent>, usize> {
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        p.feed(input, &mut out).map_err(limit_of)?;
        Ok(out)
    }

    fn ev(name: &str, data: &str) -> SseEvent {
        SseEvent {
            name: name.into(),
            data: data.into(),
        }
    }

    /// A small deterministic PRNG (xorshift64*), so the fuzz tests need no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn chunked(input: &[u8], max: usize, rng: &mut Rng) -> Result<Vec<SseEvent>, usize> {
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let n = 1 + rng.below(rest.len().min(7));
            p.feed(&rest[..n], &mut out).map_err(limit_of)?;
            rest = &rest[n..];
        }
        Ok(out)
    }

    #[test]
    fn fields_comments_and_multiline_data() {
        let input = b"\xEF\xBB\xBF: comment\nevent: endpoint\ndata: /m?x=1\n\ndata: a\ndata:b\r\ndata\r\rid: 7\nretry: 500\nevent: message\ndata: {}\n\n";
        let out = parse_all(input, 1024).unwrap();
        assert_eq!(
            out,
            vec![
                ev("endpoint", "/m?x=1"),
                ev("message", "a\nb\n"),
                ev("message", "{}")
            ]
        );
        let mut p = SseParser::new(1024);
        p.feed(input, &mut Vec::new()).unwrap();
        assert_eq!(p.last_event_id(), Some("7"));
        assert_eq!(p.retry_ms(), Some(500));
    }

    #[test]
    fn invalid_utf8_in_data_counts_as_decoded_against_the_bound() {
        // 12 invalid bytes decode to 36: within the bound as raw bytes, over it as kept text.
        let mut input = b"data: ".to_vec();
        input.extend_from_slice(&[0xFF; 12]);
        input.extend_from_slice(b"\n\n");
        assert_eq!(parse_all(&input, 16), Err(16));
        let out = parse_all(&input, 64).unwrap();
        assert_eq!(out, vec![ev("message", &"\u{FFFD}".repeat(12))]);
    }

    #[test]
    fn priming_event_sets_the_id_but_is_not_dispatched() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        p.feed(b"id: abc\nretry: 250\ndata: \n\n", &mut out)
            .unwrap();
        assert!(out.is_empty());
        assert_eq!((p.last_event_id(), p.retry_ms()), (Some("abc"), Some(250)));
        p.feed(b"retry: x\n\n", &mut out).unwrap();
        assert_eq!(p.retry_ms(), Some(250), "an invalid retry is ignored");
    }

    #[test]
    fn an_incomplete_event_at_the_end_is_not_dispatched() {
        assert!(parse_all(b"data: x\n", 64).unwrap().is_empty());
    }

    #[test]
    fn endless_line_trips_the_bound_without_buffering() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        let chunk = [b'x'; 100];
        let mut fed = 0;
        let err = loop {
            match p.feed(&chunk, &mut out) {
                Ok(()) => fed += chunk.len(),
                Err(e) => break e,
            }
            assert!(fed < 10_000, "the bound never tripped");
        };
        assert!(
            matches!(err, TransportError::TooLong { limit: 1024 }),
            "{err}"
        );
        assert!(p.line.capacity() <= 2048);
    }

    #[test]
    fn event_bound_counts_all_data_lines_and_resets_between_events() {
        let line = format!("data: {}\n", "y".repeat(300));
        let event = line.repeat(3) + "\n";
        // Three 301-byte data lines fit 1024; many such events in a row do too.
        let ok = parse_all(event.repeat(20).as_bytes(), 1024).unwrap();
        assert_eq!(ok.len(), 20);
        let big = line.repeat(4) + "\n";
        assert!(parse_all(big.as_bytes(), 1024).is_err());
    }

    #[test]
    fn fuzz_random_chunkings_match_one_shot_parsing() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let pieces: &[&[u8]] = &[
            b"data: ",
            b"h\xC3\xA9llo \xF0\x9F\x98\x80",
            b"\n",
            b"\r",
            b"\r\n",
            b"event: message\n",
            b"id: 1\n",
            b"retry: 10\n",
            b": c\n",
            b"data:x",
            b"\n\n",
            b"event:e\r\n",
        ];
        for round in 0..400 {
            let mut input = Vec::new();
            if round % 3 == 0 {
                input.extend_from_slice(BOM);
            }
            for _ in 0..rng.below(40) {
                input.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            let max = if round % 5 == 0 { 40 } else { 4096 };
            let whole = parse_all(&input, max);
            for _ in 0..4 {
                assert_eq!(
                    chunked(&input, max, &mut rng),
                    whole,
                    "input {:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
    }

    #[test]
    fn utf8_split_across_chunks_survives() {
        let input = "data: ünïcødé 😀\n\n".as_bytes();
        for split in 0..input.len() {
            let mut p = SseParser::new(64);
            let mut out = Vec::new();
            p.feed(&input[..split], &mut out).unwrap();
            p.feed(&input[split..], &mut out).unwrap();
            assert_eq!(out, vec![ev("message", "ünïcødé 😀")], "split at {split}");
        }
    }
}
