// helpers_test.go owns what the tests share: the sidecar with the fixture
// server, and a loopback HTTP server that plays the OpenAI API with scripted
// answers (openai-go has no fake model; its own client is pointed at this).

package openaigo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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

func newFakeProvider(t *testing.T, script func(t *testing.T, path string, turn int, body map[string]any) any) (*fakeProvider, openai.Client) {
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
	oc := openai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return p, oc
}

// completion is a Chat Completions response with text or tool calls.
func completion(content string, calls ...map[string]any) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(calls) > 0 {
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	return map[string]any{"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}}
}

// toolCall is one Chat Completions function call of the scripted model.
func toolCall(id, name string, args any) map[string]any {
	raw, _ := json.Marshal(args)
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)}}
}

// lastMessage is the last entry of a request's messages.
func lastMessage(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("no messages in %v", body)
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	return m
}
