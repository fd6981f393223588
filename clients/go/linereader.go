// linereader.go owns bounded line reading of the sidecar's stdout: one JSON
// message per line, never more than a fixed number of bytes buffered, and
// nothing of a long line kept once it has been read.

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

// readBufferBytes is the size of the reader's buffer: a line that fits in it
// is copied once into a buffer reused for the next line.
const readBufferBytes = 64 << 10

// lineReader reads '\n'-terminated lines of at most max bytes. It strips the
// '\n' and one '\r' before it, and skips blank lines.
//
// Memory: a line that fits in the read buffer is copied into buf, which is
// reused and never grows past readBufferBytes. A longer line is gathered as
// a list of pieces and joined once into a slice of its exact size that the
// reader does not keep, so one long line costs about twice its size while it
// is read and nothing after; an over-long line costs at most max, released
// as soon as it passes the bound (growing one buffer by appending would copy
// it over and over, ~5 times its size for 64 MiB, and keep the largest).
type lineReader struct {
	r      *bufio.Reader
	max    int
	buf    []byte   // the current short line
	pieces [][]byte // the current long line, while it is read
	prefix []byte   // the first bytes of the current long line
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	size := readBufferBytes
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
	chunk, err := l.r.ReadSlice('\n')
	if err == nil || errors.Is(err, io.EOF) {
		// The whole line (or the input's last bytes) is in the read buffer.
		if len(chunk) == 0 {
			return nil, io.EOF
		}
		l.buf = append(l.buf[:0], chunk...)
		return l.finish(l.buf, err == nil)
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	return l.readLong(chunk)
}

// readLong reads the rest of a line that does not fit in the read buffer;
// first is its first buffer-full.
func (l *lineReader) readLong(first []byte) ([]byte, error) {
	defer func() { l.pieces, l.prefix = nil, l.prefix[:0] }()
	size := 0
	tooLong := false
	chunk, err := first, bufio.ErrBufferFull
	for {
		size += len(chunk)
		if keep := prefixKeep - len(l.prefix); keep > 0 {
			l.prefix = append(l.prefix, chunk[:min(keep, len(chunk))]...)
		}
		if !tooLong && size > l.max+1 { // +1: the '\n' itself is not counted
			tooLong = true
			l.pieces = nil // released now, not at the line's end
		}
		if !tooLong {
			l.pieces = append(l.pieces, append([]byte(nil), chunk...))
		}
		switch {
		case err == nil || errors.Is(err, io.EOF):
			complete := err == nil
			if !complete && size == 0 {
				return nil, io.EOF
			}
			lineSize := size
			if complete {
				lineSize-- // the '\n'
			}
			if tooLong || lineSize > l.max {
				return nil, &lineTooLongError{Limit: l.max, Size: lineSize, Prefix: append([]byte(nil), l.prefix...)}
			}
			line := make([]byte, 0, size)
			for _, piece := range l.pieces {
				line = append(line, piece...)
			}
			return l.finish(line, complete)
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return nil, err
		}
		chunk, err = l.r.ReadSlice('\n')
	}
}

// finish strips the line's '\n' (when it has one) and one '\r' before it.
func (l *lineReader) finish(line []byte, complete bool) ([]byte, error) {
	if complete {
		line = line[:len(line)-1]
	}
	if len(line) > l.max {
		return nil, &lineTooLongError{Limit: l.max, Size: len(line), Prefix: append([]byte(nil), line[:min(prefixKeep, len(line))]...)}
	}
	return bytes.TrimSuffix(line, []byte("\r")), nil
}
