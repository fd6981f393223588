// protocol_additions_test.go covers servers/load, servers/test,
// results/read, the trust gate and the new status/entry fields against
// the real sidecar and fixture binaries.

package client

import (
	"strings"
	"testing"
	"time"
)

func TestLoadServersClaudeDesktop(t *testing.T) {
	c := startClient(t, Options{})
	ctx := testCtx(t, 15*time.Second)
	doc := map[string]any{"mcpServers": map[string]any{
		"fix": map[string]any{"command": fixtureBin(t)},
		"bad": map[string]any{"args": []string{"no-command"}},
	}}
	res, err := c.LoadServers(ctx, LoadRequest{JSON: doc, Dialect: "claude-desktop"})
	if err != nil {
		t.Fatalf("LoadServers: %v", err)
	}
	if len(res.Added) != 1 || res.Added[0].Name != "fix" || res.Added[0].State != StateReady {
		t.Fatalf("added = %+v, want fix ready", res.Added)
	}
	st := res.Added[0]
	if st.Source != SourceUser || st.Transport != "stdio" || st.ToolsCount != 7 {
		t.Errorf("status source=%q transport=%q toolsCount=%d", st.Source, st.Transport, st.ToolsCount)
	}
	var bad *Diagnostic
	for i, d := range res.Diagnostics {
		if d.Server == "bad" && d.Severity == "error" {
			bad = &res.Diagnostics[i]
		}
	}
	if bad == nil || bad.Kind != "missing-field" || bad.Path != "mcpServers.bad.command" || bad.Message == "" {
		t.Fatalf("no error diagnostic for bad: %+v", res.Diagnostics)
	}
	if len(res.TrustRequired) != 0 {
		t.Errorf("trustRequired = %+v", res.TrustRequired)
	}
	servers, err := c.ListServers(ctx)
	if err != nil || len(servers) != 1 || servers[0].Name != "fix" {
		t.Fatalf("ListServers = %+v, %v", servers, err)
	}
}

func TestLoadServersNeedsOneSource(t *testing.T) {
	c := startClient(t, Options{})
	ctx := testCtx(t, 5*time.Second)
	for _, req := range []LoadRequest{{}, {Path: "/x", Text: "{}"}} {
		if _, err := c.LoadServers(ctx, req); !IsCode(err, CodeInvalidParams) {
			t.Errorf("LoadServers(%+v) err = %v, want INVALID_PARAMS", req, err)
		}
	}
}

func TestTestServerRegistersNothing(t *testing.T) {
	c := startClient(t, Options{})
	ctx := testCtx(t, 15*time.Second)
	rep, err := c.TestServer(ctx, ServerConfig{Command: fixtureBin(t)}, nil)
	if err != nil {
		t.Fatalf("TestServer: %v", err)
	}
	if rep.State != StateReady || rep.ToolsCount != 7 || len(rep.Tools) != 7 || rep.Error != nil {
		t.Fatalf("report = %+v", rep)
	}
	if rep.Transport != "stdio" || rep.ServerInfo == nil || rep.ProtocolVersion == "" || rep.Timings.ListMs == nil {
		t.Errorf("report details = %+v", rep)
	}
	if rep.PID > 0 && pidAlive(rep.PID) {
		t.Errorf("tested process %d still alive", rep.PID)
	}
	servers, err := c.ListServers(ctx)
	if err != nil || len(servers) != 0 {
		t.Fatalf("ListServers = %+v, %v; want none", servers, err)
	}
	tools, err := c.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 0 {
		t.Fatalf("ListTools = %+v, %v; want none", tools, err)
	}

	failed, err := c.TestServer(ctx, ServerConfig{Command: "/nonexistent/mcp-server"}, &TestServerOptions{Name: "nope"})
	if err != nil {
		t.Fatalf("TestServer (bad command): %v", err)
	}
	if failed.State != StateError || failed.Error == nil || failed.ToolsCount != 0 {
		t.Fatalf("failed report = %+v", failed)
	}
}

func TestTruncatedResultReadResult(t *testing.T) {
	c := startClient(t, Options{})
	ctx := testCtx(t, 15*time.Second)
	st, err := c.AddServer(ctx, "fx", ServerConfig{
		Command: fixtureBin(t), ResultPolicy: ResultPolicyTruncate, MaxResultBytes: 4096,
	}, nil)
	if err != nil || st.State != StateReady {
		t.Fatalf("AddServer: %+v, %v", st, err)
	}
	res, err := c.CallTool(ctx, "mcp__fx__large", map[string]any{"bytes": 20000}, &CallOptions{Format: FormatMCP})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	tr := res.Truncated
	if tr == nil || tr.Handle == "" || tr.TotalBytes != 20000 || tr.Length <= 0 {
		t.Fatalf("truncated = %+v", tr)
	}
	if !strings.HasPrefix(strings.TrimSpace(string(res.Output)), "{") {
		t.Errorf("format mcp: output %.60s, want an object", res.Output)
	}
	// The cut part, in small reads, then the whole text in one read.
	var cut strings.Builder
	off := tr.Offset
	for {
		chunk, err := c.ReadResult(ctx, tr.Handle, &ReadResultOptions{Offset: off, Length: 3000})
		if err != nil {
			t.Fatalf("ReadResult at %d: %v", off, err)
		}
		if chunk.Offset != off || chunk.TotalBytes != tr.TotalBytes || int64(len(chunk.Text)) != chunk.Length {
			t.Fatalf("chunk = offset %d length %d total %d", chunk.Offset, chunk.Length, chunk.TotalBytes)
		}
		cut.WriteString(chunk.Text)
		off += chunk.Length
		if chunk.EOF || off >= tr.Offset+tr.Length {
			break
		}
	}
	if got := cut.String()[:tr.Length]; got != strings.Repeat("x", int(tr.Length)) {
		t.Errorf("cut part is not %d x's", tr.Length)
	}
	full, err := c.ReadResult(ctx, tr.Handle, nil)
	if err != nil {
		t.Fatalf("full read: %v", err)
	}
	if !full.EOF || full.Offset != 0 || full.Text != strings.Repeat("x", 20000) {
		t.Fatalf("full read: eof=%v offset=%d length=%d", full.EOF, full.Offset, full.Length)
	}

	_, err = c.ReadResult(ctx, "r-999", nil)
	if !IsCode(err, CodeResultExpired) {
		t.Fatalf("unknown handle: err = %v, want RESULT_EXPIRED", err)
	}
	if e := err.(*Error); e.RPCCode != -32024 || e.Data["handle"] != "r-999" {
		t.Errorf("RESULT_EXPIRED error = %+v", e)
	}

	// The status counts the call; the entry has conversion notes.
	servers, err := c.ListServers(ctx)
	if err != nil || len(servers) != 1 || servers[0].Calls != 1 || servers[0].Source != SourceHost || servers[0].P50LatencyMs == nil {
		t.Errorf("status after call = %+v, %v", servers, err)
	}
	strict := true
	tools, err := c.ListTools(ctx, &ListToolsOptions{Strict: &strict})
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("ListTools strict: %+v, %v", tools, err)
	}
	for _, tool := range tools.Tools {
		if tool.ConversionNotes == nil {
			t.Errorf("%s: conversionNotes missing", tool.Name)
		}
	}
}

func TestTrustRequiredRoundTrip(t *testing.T) {
	c := startClient(t, Options{RequireTrust: true})
	if !c.Info().Capabilities.Trust || len(c.Info().Capabilities.ConfigDialects) != 8 {
		t.Errorf("capabilities = %+v", c.Info().Capabilities)
	}
	ctx := testCtx(t, 15*time.Second)
	cfg := ServerConfig{Command: fixtureBin(t)}

	_, err := c.AddServer(ctx, "fx", cfg, nil)
	if !IsCode(err, CodeTrustRequired) {
		t.Fatalf("AddServer without trust: err = %v, want TRUST_REQUIRED", err)
	}
	e := err.(*Error)
	digest := e.TrustDigest()
	if e.RPCCode != -32014 || !strings.HasPrefix(digest, "sha256:") || e.Data["server"] != "fx" {
		t.Fatalf("TRUST_REQUIRED error = %+v", e)
	}
	if servers, _ := c.ListServers(ctx); len(servers) != 0 {
		t.Fatalf("registered without trust: %+v", servers)
	}
	if _, err := c.TestServer(ctx, cfg, &TestServerOptions{Name: "fx"}); !IsCode(err, CodeTrustRequired) {
		t.Errorf("TestServer without trust: err = %v", err)
	}
	if _, err := c.AddServer(ctx, "fx", cfg, &AddServerOptions{Trust: "sha256:" + strings.Repeat("0", 64)}); !IsCode(err, CodeTrustRequired) {
		t.Errorf("AddServer with a wrong digest: err = %v", err)
	}

	st, err := c.AddServer(ctx, "fx", cfg, &AddServerOptions{Trust: digest})
	if err != nil || st.State != StateReady {
		t.Fatalf("AddServer with trust: %+v, %v", st, err)
	}
	rep, err := c.TestServer(ctx, cfg, &TestServerOptions{Name: "fx", Trust: digest})
	if err != nil || rep.State != StateReady {
		t.Fatalf("TestServer with trust: %+v, %v", rep, err)
	}

	// servers/load reports held-back servers instead of failing.
	doc := map[string]any{"mcpServers": map[string]any{"loaded": map[string]any{"command": fixtureBin(t)}}}
	res, err := c.LoadServers(ctx, LoadRequest{JSON: doc, Dialect: "claude-desktop"})
	if err != nil || len(res.Added) != 0 || len(res.TrustRequired) != 1 {
		t.Fatalf("LoadServers without trust: %+v, %v", res, err)
	}
	req := res.TrustRequired[0]
	if req.Name != "loaded" || !strings.HasPrefix(req.Digest, "sha256:") || req.Command == "" {
		t.Fatalf("trust request = %+v", req)
	}
	res, err = c.LoadServers(ctx, LoadRequest{JSON: doc, Dialect: "claude-desktop", Trust: map[string]string{req.Name: req.Digest}})
	if err != nil || len(res.Added) != 1 || res.Added[0].State != StateReady || len(res.TrustRequired) != 0 {
		t.Fatalf("LoadServers with trust: %+v, %v", res, err)
	}
}
