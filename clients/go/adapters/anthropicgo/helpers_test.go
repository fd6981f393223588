// helpers_test.go owns what the tests share: the sidecar with the fixture
// server, and a loopback HTTP server that plays the Anthropic API with scripted
// answers (anthropic-sdk-go has no fake model; its own client is pointed at this).

package anthropicgo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// testBinary returns $env or the checkout's target/debug/name, absolute.
func testBinary(t *testing.T, env, name string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join("..", "..", "..", "..", "target", "debug", name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s not found (%v): run `cargo build --workspace` in the repository root or set %s", name, err, env)
	}
	return abs
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startSidecar starts a sidecar with the fixture server "fixture" (its
// ask and progress tools included); Close runs at cleanup.
func startSidecar(t *testing.T, handlers client.Handlers) *client.Client {
	t.Helper()
	ctx := testCtx(t)
	c, err := client.Start(ctx, client.Options{
		BinaryPath: testBinary(t, "MCP_SIDECAR_BIN", "mcp-sidecar"),
		Stderr:     io.Discard,
		Handlers:   handlers,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	st, err := c.AddServer(ctx, "fixture", client.ServerConfig{
		Command: testBinary(t, "MCP_FIXTURE_BIN", "mcp-fixture"), Args: []string{"--client-requests", "--surface"}}, nil)
	if err != nil || st.State != client.StateReady {
		t.Fatalf("AddServer: %v %+v", err, st)
	}
	return c
}

// fakeProvider is the provider's HTTP API on 127.0.0.1: each request's
// JSON body is recorded and answered by script (turn counts from 0).
type fakeProvider struct {
	mu       sync.Mutex
	requests []map[string]any
}

func newFakeProvider(t *testing.T, script func(t *testing.T, path string, turn int, body map[string]any) any) (*fakeProvider, anthropic.Client) {
	t.Helper()
	p := &fakeProvider{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		turn := len(p.requests)
		p.requests = append(p.requests, body)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(script(t, r.URL.Path, turn, body))
	}))
	t.Cleanup(srv.Close)
	ac := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return p, ac
}

// message is a Messages API response with text and/or tool_use blocks.
func message(content ...map[string]any) map[string]any {
	stop := "end_turn"
	for _, c := range content {
		if c["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	return map[string]any{"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id, name string, input any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// lastToolResults is the tool_result blocks of the request's last message.
func lastToolResults(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "user" {
		t.Errorf("last message is not the user's: %v", last)
	}
	var out []map[string]any
	for _, raw := range asList(last["content"]) {
		if b, _ := raw.(map[string]any); b["type"] == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// describe renders tool_result blocks as "id[error]: text|image/png ..."
// for the scripted model to answer with.
func describe(results []map[string]any) string {
	var parts []string
	for _, r := range results {
		s := r["tool_use_id"].(string)
		if r["is_error"] == true {
			s += "[error]"
		}
		s += ":"
		for _, raw := range asList(r["content"]) {
			b := raw.(map[string]any)
			switch b["type"] {
			case "text":
				s += " " + b["text"].(string)
			case "image":
				src := b["source"].(map[string]any)
				// The PNG signature, base64: the fixture's image, not a rendering.
				s += fmt.Sprintf(" %s/%s/%.8s", src["type"], src["media_type"], src["data"])
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}
