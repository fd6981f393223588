// trace_test.go owns the test of CallOptions.TraceParent.
package client

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A call's TraceParent reaches the server in _meta.traceparent (the sidecar
// exports no spans here, so it passes the context on as given).
func TestCallToolPassesItsTraceParentToTheServer(t *testing.T) {
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	log := filepath.Join(t.TempDir(), "meta.jsonl")
	c := startClient(t, Options{})
	addFixture(t, c, "fx", "--log-meta", log)
	ctx := testCtx(t, 10*time.Second)
	opts := &CallOptions{TraceParent: parent, TraceState: "vendor=1"}
	if _, err := c.CallTool(ctx, "mcp__fx__echo", map[string]any{"message": "m"}, opts); err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	text, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(text))), &meta); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	if meta["traceparent"] != parent || meta["tracestate"] != "vendor=1" {
		t.Fatalf("the server was told %v", meta)
	}
}
