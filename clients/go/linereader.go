// linereader.go owns bounded line reading of the sidecar's stdout: one JSON
// message per line, never more than a fixed number of bytes buffered.

package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// DefaultMaxLineBytes is the default bound on one line from the sidecar
// (64 MiB). The sidecar's own results are bounded by each server's
// maxResultBytes (256 KiB by default), so this only trips on misconfiguration.
const DefaultMaxLineBytes = 64 << 20

// lineTooLongError reports a line over the bound. The line was consumed and
// discarded up to its '\n'; Prefix holds its first bytes (at most
// prefixKeep) so the caller can still find the id of the response.
type lineTooLongError struct {
	Limit  int
	Size   int // bytes of the discarded line (without '\n')
	Prefix []byte
}

func (e *lineTooLongError) Error() string {
	return "line longer than the limit"
}

// prefixKeep is how much of an over-long line is kept for id recovery.
const prefixKeep = 4096

// lineReader reads '\n'-terminated lines of at most max bytes. It strips the
// '\n' and one '\r' before it, and skips blank lines.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	size := 64 << 10
	if size > max {
		size = max
	}
	if size < 16 {
		size = 16
	}
	return &lineReader{r: bufio.NewReaderSize(r, size), max: max}
}

// next returns the next non-blank line. The returned slice is valid until the
// following call. A *lineTooLongError is not fatal: reading may continue.
// io.EOF is returned at the end of input (a final unterminated line is still
// returned first).
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	size := 0
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+1 { // +1: the '\n' itself is not counted
				tooLong = true
				keep := prefixKeep - len(l.buf)
				if keep > len(chunk) {
					keep = len(chunk)
				}
				if keep > 0 {
					l.buf = append(l.buf, chunk[:keep]...)
				}
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			line := bytes.TrimSuffix(l.buf, []byte("\n"))
			if tooLong {
				return nil, &lineTooLongError{Limit: l.max, Size: size - 1, Prefix: append([]byte(nil), line...)}
			}
			return bytes.TrimSuffix(line, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong || len(l.buf) > l.max {
				if len(l.buf) > prefixKeep {
					l.buf = l.buf[:prefixKeep]
				}
				return nil, &lineTooLongError{Limit: l.max, Size: size, Prefix: append([]byte(nil), l.buf...)}
			}
			if len(l.buf) > 0 {
				return bytes.TrimSuffix(l.buf, []byte("\r")), nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
