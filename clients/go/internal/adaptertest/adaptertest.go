// Package adaptertest holds what the framework adapters' tests share: the
// sidecar with the fixture server, and a loopback HTTP server that plays a
// provider's API with scripted answers (the SDKs have no fake model; each
// adapter points its SDK's own client at this).
package adaptertest

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
)

// Binary returns $env or the checkout's target/debug/name, absolute (the
// tests run in clients/go/adapters/<adapter>).
func Binary(t *testing.T, env, name string) string {
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

// Ctx is a context of 30 s, cancelled at cleanup.
func Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// StartSidecar starts a sidecar with the fixture server "fixture" (its
// ask and progress tools included); Close runs at cleanup.
func StartSidecar(t *testing.T, handlers client.Handlers) *client.Client {
	t.Helper()
	ctx := Ctx(t)
	c, err := client.Start(ctx, client.Options{
		BinaryPath: Binary(t, "MCP_SIDECAR_BIN", "mcp-sidecar"),
		Stderr:     io.Discard,
		Handlers:   handlers,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	st, err := c.AddServer(ctx, "fixture", client.ServerConfig{
		Command: Binary(t, "MCP_FIXTURE_BIN", "mcp-fixture"), Args: []string{"--client-requests", "--surface"}}, nil)
	if err != nil || st.State != client.StateReady {
		t.Fatalf("AddServer: %v %+v", err, st)
	}
	return c
}

// FakeProvider is the provider's HTTP API on 127.0.0.1: each request's
// JSON body is recorded and answered by script (turn counts from 0).
type FakeProvider struct {
	mu       sync.Mutex
	requests []map[string]any
}

// NewFakeProvider starts the server, closed at cleanup, and returns its URL.
func NewFakeProvider(t *testing.T, script func(t *testing.T, path string, turn int, body map[string]any) any) (*FakeProvider, string) {
	t.Helper()
	p := &FakeProvider{}
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
	return p, srv.URL
}

// Requests is the bodies received so far, in order.
func (p *FakeProvider) Requests() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.requests...)
}
