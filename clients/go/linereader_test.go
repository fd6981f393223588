// linereader_test.go owns the tests of bounded line reading.

package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	input := "a\r\n\n   \nbb\n" + `{"id":7,"x":"` + long + "\"}\nccc\n" + long + "\nlast"
	// OneByteReader forces many short reads: lines span buffer refills.
	for name, r := range map[string]io.Reader{
		"whole": strings.NewReader(input),
		"bytes": iotest.OneByteReader(strings.NewReader(input)),
	} {
		lr := newLineReader(r, 32)
		var got []string
		for {
			line, err := lr.next()
			var tooLong *lineTooLongError
			if errors.As(err, &tooLong) {
				if tooLong.Limit != 32 || tooLong.Size < 100 {
					t.Errorf("%s: %+v", name, tooLong)
				}
				id, ok := idFromPrefix(tooLong.Prefix)
				got = append(got, "TOO_LONG:"+map[bool]string{true: string(rune('0' + id)), false: "-"}[ok])
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, string(line))
		}
		want := "a|bb|TOO_LONG:7|ccc|TOO_LONG:-|last"
		if strings.Join(got, "|") != want {
			t.Errorf("%s: got %q, want %q", name, strings.Join(got, "|"), want)
		}
	}
}

func TestLineReaderExactLimit(t *testing.T) {
	lr := newLineReader(strings.NewReader(strings.Repeat("y", 16)+"\n"+strings.Repeat("z", 17)), 16)
	if line, err := lr.next(); err != nil || len(line) != 16 {
		t.Fatalf("a line of exactly the limit: %q %v", line, err)
	}
	var tooLong *lineTooLongError
	if _, err := lr.next(); !errors.As(err, &tooLong) || tooLong.Size != 17 {
		t.Fatalf("unterminated line over the limit: %v", err)
	}
	if _, err := lr.next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestIDFromPrefix(t *testing.T) {
	for prefix, want := range map[string]int64{
		`{"jsonrpc":"2.0","id":42,"result":{"text":"xxx`: 42,
		`{"id":-3`: -1, // a truncated number is not trusted
		`{"jsonrpc":"2.0","method":"n","params":{"a"`: -1,
		`{"result":{"a":1},"id":9,`:                   9,
		`[1,2]`:                                       -1,
		`{"id":"s","result":`:                         -1,
	} {
		id, ok := idFromPrefix([]byte(prefix))
		if (want < 0 && ok) || (want >= 0 && (!ok || id != want)) {
			t.Errorf("%s: got %d %v, want %d", prefix, id, ok, want)
		}
	}
}

// A long line is not kept by the reader once it has been read: the buffer it
// keeps for the next line stays at the read buffer's size (a reader that
// appended every line into one reused buffer kept the longest line's
// capacity, tens of megabytes, for as long as the client lived).
func TestLineReaderKeepsNoLongLine(t *testing.T) {
	const long = 8 << 20
	input := strings.Repeat("x", long) + "\n" + strings.Repeat("y", 3*long) + "\nshort\n"
	lr := newLineReader(strings.NewReader(input), 2*long)
	if line, err := lr.next(); err != nil || len(line) != long {
		t.Fatalf("the long line: %d bytes, %v", len(line), err)
	}
	var tooLong *lineTooLongError
	if _, err := lr.next(); !errors.As(err, &tooLong) || tooLong.Size != 3*long || len(tooLong.Prefix) != prefixKeep {
		t.Fatalf("the over-long line: %v", err)
	}
	if line, err := lr.next(); err != nil || string(line) != "short" {
		t.Fatalf("the line after: %q %v", line, err)
	}
	if kept := cap(lr.buf) + cap(lr.prefix) + len(lr.pieces); kept > readBufferBytes+prefixKeep {
		t.Fatalf("the reader keeps %d bytes after a long line, want at most %d", kept, readBufferBytes+prefixKeep)
	}
}

// FuzzLineReader checks the reader against a plain model of the framing
// (split at '\n', a line over the bound reported with its size, one '\r'
// stripped, blank lines skipped), whole and one byte at a time.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\r\n\n  \nbb\nccc"), uint16(2))
	f.Add([]byte(strings.Repeat("x", 70000)+"\n"+strings.Repeat("y", 20)+"\r\n"), uint16(65535))
	f.Add([]byte(`{"id":1,"result":{}}`+"\n\r\n\t\n"), uint16(16))
	f.Add([]byte(strings.Repeat("z", 300)), uint16(299))
	f.Fuzz(func(t *testing.T, data []byte, bound uint16) {
		max := int(bound)%(80<<10) + 1
		want := modelLines(data, max)
		for name, r := range map[string]io.Reader{
			"whole": bytes.NewReader(data),
			"bytes": iotest.OneByteReader(bytes.NewReader(data)),
		} {
			if got := readerLines(newLineReader(r, max)); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, max %d: got %q, want %q", name, max, got, want)
			}
		}
	})
}

func modelLines(data []byte, max int) []string {
	var out []string
	segments := bytes.Split(data, []byte("\n"))
	if last := len(segments) - 1; len(segments[last]) == 0 {
		segments = segments[:last] // the input ended with '\n' (or was empty)
	}
	for _, seg := range segments {
		switch {
		case len(seg) > max:
			out = append(out, fmt.Sprintf("TOO_LONG:%d", len(seg)))
		case len(bytes.TrimSpace(seg)) > 0:
			out = append(out, string(bytes.TrimSuffix(seg, []byte("\r"))))
		}
	}
	return out
}

func readerLines(lr *lineReader) []string {
	var out []string
	for {
		line, err := lr.next()
		var tooLong *lineTooLongError
		switch {
		case errors.As(err, &tooLong):
			out = append(out, fmt.Sprintf("TOO_LONG:%d", tooLong.Size))
		case err == io.EOF:
			return out
		case err != nil:
			return append(out, "ERROR:"+err.Error())
		default:
			out = append(out, string(line))
		}
	}
}
