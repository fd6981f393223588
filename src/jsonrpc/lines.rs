//! A newline-delimited reader with a hard bound on line length.
//!
//! The bound trips *before* an over-long line is buffered: at most `max` bytes of the current line plus
//! one read buffer are ever held, so a peer writing an endless line with no newline costs fixed memory.
//! After a trip, the rest of that line is skipped and reading resumes at the next newline, so one bad
//! line does not end the stream (the caller decides whether it should).
//!
//! A line that lies whole in the read buffer (the common case) is handed out in place, without a
//! copy, and consumed from the buffer when the next line is asked for; only a line split across
//! reads is gathered into a buffer of the reader's own.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error("line longer than the {limit}-byte limit")]
    TooLong { limit: usize },
    #[error("read failed: {0}")]
    Io(#[from] std::io::Error),
}

pub struct LineReader<R> {
    inner: R,
    line: Vec<u8>,
    max: usize,
    /// The line in `line` was handed out by the previous call and must be cleared first.
    returned: bool,
    /// Bytes of `inner`'s buffer the previous call handed out in place: consumed by the next call
    /// (not before, as the caller is still reading them).
    lent: usize,
    /// Set after a trip: bytes up to the next newline belong to the rejected line.
    discarding: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            line: Vec::new(),
            max,
            returned: false,
            lent: 0,
            discarding: false,
        }
    }

    pub fn limit(&self) -> usize {
        self.max
    }

    /// The next line without its `\n` (and without a `\r` right before it); `Ok(None)` at end of
    /// stream. A final line without a newline is returned as a line. Empty lines are returned too.
    ///
    /// Cancel-safe: a partial line lives in `self`, so dropping the future loses nothing.
    pub async fn next_line(&mut self) -> Result<Option<&[u8]>, LineError> {
        if self.returned {
            self.line.clear();
            self.returned = false;
        }
        if self.lent > 0 {
            self.inner.consume(self.lent);
            self.lent = 0;
        }
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if self.discarding || self.line.is_empty() {
                    self.discarding = false;
                    return Ok(None);
                }
                return Ok(Some(self.hand_out()));
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.unwrap_or(available.len());
            let consumed = newline.map_or(take, |n| n + 1);
            if self.discarding {
                self.discarding = newline.is_none();
                self.inner.consume(consumed);
                continue;
            }
            if self.line.len() + take > self.max {
                self.line.clear();
                self.discarding = newline.is_none();
                self.inner.consume(consumed);
                return Err(LineError::TooLong { limit: self.max });
            }
            if newline.is_some() && self.line.is_empty() {
                return self.lend(take, consumed).await.map(Some);
            }
            self.line.extend_from_slice(&available[..take]);
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(Some(self.hand_out()));
            }
        }
    }

    /// The whole line at the start of `inner`'s buffer, in place; its `consumed` bytes are
    /// consumed by the next call.
    async fn lend(&mut self, take: usize, consumed: usize) -> Result<&[u8], LineError> {
        // The buffer is not empty, so this returns it again without reading. Asked for anew
        // because a borrow returned from inside the loop of `next_line` would hold `inner` for
        // the whole loop.
        let buffered = self.inner.fill_buf().await?;
        // Set only now: a future dropped before this point has lent nothing.
        self.lent = consumed;
        let line = &buffered[..take];
        Ok(line.strip_suffix(b"\r").unwrap_or(line))
    }

    fn hand_out(&mut self) -> &[u8] {
        self.returned = true;
        let line = self.line.as_slice();
        line.strip_suffix(b"\r").unwrap_or(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncWriteExt, BufReader};

    async fn lines_of(input: &[u8], max: usize, capacity: usize) -> Vec<Result<String, String>> {
        let reader = BufReader::with_capacity(capacity, input);
        let mut lines = LineReader::new(reader, max);
        let mut out = Vec::new();
        loop {
            match lines.next_line().await {
                Ok(Some(l)) => out.push(Ok(String::from_utf8_lossy(l).into_owned())),
                Ok(None) => break,
                Err(e) => out.push(Err(e.to_string())),
            }
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_across_small_reads() {
        for capacity in [1, 2, 3, 7, 64] {
            let got = lines_of(b"ab\r\n\ncdef\nlast", 8, capacity).await;
            assert_eq!(
                got,
                vec![
                    Ok("ab".into()),
                    Ok("".into()),
                    Ok("cdef".into()),
                    Ok("last".into())
                ]
            );
        }
    }

    #[tokio::test]
    async fn over_long_line_trips_and_reading_resumes_after_it() {
        for capacity in [1, 4, 64] {
            let got = lines_of(b"ok\n0123456789abc\nnext\n", 8, capacity).await;
            assert_eq!(
                got,
                vec![
                    Ok("ok".into()),
                    Err("line longer than the 8-byte limit".into()),
                    Ok("next".into())
                ],
                "capacity {capacity}"
            );
        }
    }

    #[tokio::test]
    async fn line_of_exactly_the_limit_is_accepted() {
        assert_eq!(
            lines_of(b"12345678\n", 8, 3).await,
            vec![Ok("12345678".into())]
        );
    }

    #[tokio::test]
    async fn endless_line_trips_without_buffering_it() {
        let (mut tx, rx) = tokio::io::duplex(64 * 1024);
        let writer = tokio::spawn(async move {
            let chunk = vec![b'a'; 64 * 1024];
            // 64 MiB with no newline; the reader must trip long before this ends.
            for _ in 0..1024 {
                if tx.write_all(&chunk).await.is_err() {
                    return;
                }
            }
        });
        let mut lines = LineReader::new(BufReader::new(rx), 1024 * 1024);
        let first = lines.next_line().await.map(|l| l.map(<[u8]>::len));
        assert!(matches!(first, Err(LineError::TooLong { limit: 1048576 })));
        assert!(
            lines.line.capacity() <= 2 * 1024 * 1024,
            "buffered {}",
            lines.line.capacity()
        );
        drop(lines);
        writer.await.unwrap();
    }

    #[tokio::test]
    async fn a_line_whole_in_the_read_buffer_is_not_copied() {
        let mut lines = LineReader::new(BufReader::with_capacity(64, &b"one\ntwo\r\n"[..]), 8);
        assert_eq!(lines.next_line().await.unwrap(), Some(&b"one"[..]));
        assert_eq!(lines.next_line().await.unwrap(), Some(&b"two"[..]));
        assert_eq!(lines.next_line().await.unwrap(), None);
        assert_eq!(
            lines.line.capacity(),
            0,
            "a line was gathered into the reader's own buffer"
        );
    }
}
