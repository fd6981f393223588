// dispatch_bench_test.go owns the in-process benchmark of the reader's hot
// path: routing one tools/call response line to its waiting call (no
// process, no pipes), so the cost of the request/notification branches is
// visible without the noise of a real round trip.

package client

import (
	"encoding/json"
	"strconv"
	"testing"
)

func BenchmarkDispatchResponse(b *testing.B) {
	c := &Client{pending: map[int64]chan response{}}
	result := `{"isError":false,"content":[{"type":"text","text":"hello"}],"text":"hello","output":"hello","server":"fx","tool":"echo","durationMs":0.1}`
	lines := make([][]byte, 1024)
	for i := range lines {
		lines[i] = []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"result":` + result + `}`)
	}
	ch := make(chan response, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := int64(i%len(lines)) + 1
		c.mu.Lock()
		c.pending[id] = ch
		c.mu.Unlock()
		c.dispatch(lines[id-1])
		r := <-ch
		if r.err != nil || !json.Valid(r.result) {
			b.Fatal("bad response")
		}
	}
}
