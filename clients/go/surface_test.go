// surface_test.go covers the calls beyond tools that the shared scenarios
// reach only in part: the server log stream (the session level option and
// its bound), typed resource/prompt notifications, search hits, stats of
// named servers, tools/accept, login/logout refusals, and progress after
// a call.

package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// emitLog makes server a log one message at level.
func emitLog(t *testing.T, c *Client, level string, data any) {
	t.Helper()
	args := map[string]any{"kind": "log", "level": level, "data": data}
	if _, err := c.CallTool(testCtx(t, 10*time.Second), "mcp__a__emit", args, nil); err != nil {
		t.Fatalf("emit log: %v", err)
	}
}

// Options.ServerLogs sets the session's level in initialize; the Logs
// channel keeps the newest LogBuffer messages and counts the dropped ones.
func TestLogStreamIsBounded(t *testing.T) {
	c := startClient(t, Options{ServerLogs: LogInfo, LogBuffer: 2})
	addFixture(t, c, "a", "--surface")
	emitLog(t, c, LogDebug, "below the level")
	for i := 0; i < 5; i++ {
		emitLog(t, c, LogWarning, fmt.Sprintf("log-%d", i))
	}
	// Nothing reads Logs meanwhile; there is no event for a drop, so poll
	// the counter (5 warnings into 2 slots: 3 dropped).
	eventually(t, 10*time.Second, "3 dropped logs", func() bool { return c.DroppedLogs() == 3 })
	for _, want := range []string{`"log-3"`, `"log-4"`} {
		select {
		case l := <-c.Logs():
			if l.Server != "a" || l.Level != LogWarning || string(l.Data) != want {
				t.Fatalf("log %+v (data %s), want %s", l, l.Data, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no log queued")
		}
	}
	select {
	case l := <-c.Logs():
		t.Fatalf("a third log was queued: %+v", l)
	default:
	}
	if c.DroppedNotifications() != 0 {
		t.Errorf("logs counted as dropped notifications: %d", c.DroppedNotifications())
	}
}

// Resource and prompt list changes arrive typed on Notifications.
func TestListChangedNotifications(t *testing.T) {
	c := startClient(t, Options{})
	addFixture(t, c, "a", "--surface")
	ctx := testCtx(t, 15*time.Second)
	for _, kind := range []string{"resources-changed", "prompts-changed"} {
		if _, err := c.CallTool(ctx, "mcp__a__emit", map[string]any{"kind": kind}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var resources, prompts *ListChanged
	for resources == nil || prompts == nil {
		select {
		case n := <-c.Notifications():
			if n.ResourcesChanged != nil {
				resources = n.ResourcesChanged
			}
			if n.PromptsChanged != nil {
				prompts = n.PromptsChanged
			}
		case <-ctx.Done():
			t.Fatalf("missing list changes: resources %v prompts %v", resources, prompts)
		}
	}
	if resources.Server != "a" || prompts.Server != "a" {
		t.Fatalf("resources %+v prompts %+v", resources, prompts)
	}
}

func TestSearchStatsAcceptLogin(t *testing.T) {
	c := startClient(t, Options{})
	addFixture(t, c, "a")
	addFixture(t, c, "b")
	ctx := testCtx(t, 15*time.Second)

	res, err := c.SearchTools(ctx, "echo", &SearchToolsOptions{Servers: []string{"b"}, Format: FormatAnthropic})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := res.Hits()
	if err != nil || len(hits) == 0 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	first := hits[0]
	if first.Tool.Name != "mcp__b__echo" || !first.Exact || first.Score <= 0 || res.Total < 1 {
		t.Fatalf("first hit %+v (total %d)", first, res.Total)
	}
	var def map[string]any
	if err := json.Unmarshal(first.Tool.Definition, &def); err != nil || def["input_schema"] == nil {
		t.Fatalf("anthropic definition %s", first.Tool.Definition)
	}
	if _, err := c.SearchTools(ctx, " ", nil); !IsCode(err, CodeInvalidParams) {
		t.Fatalf("empty query: %v", err)
	}

	if _, err := c.CallTool(ctx, "mcp__b__echo", map[string]any{"message": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	stats, err := c.ServerStats(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Servers) != 1 || stats.Servers[0].Name != "b" || stats.Servers[0].Total.Calls != 1 || stats.Servers[0].BytesOut == 0 {
		t.Fatalf("stats %+v", stats.Servers)
	}
	if _, err := c.ServerStats(ctx, "nope"); !IsCode(err, CodeServerNotFound) {
		t.Fatalf("stats of an unknown server: %v", err)
	}

	acc, err := c.AcceptTools(ctx, []ToolRef{{Server: "a", Tool: "echo", Hash: "sha256:0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.Accepted) != 0 || len(acc.Rejected) != 1 || acc.Rejected[0].Reason == "" {
		t.Fatalf("accept of a tool not held: %+v", acc)
	}

	// A stdio server does not use OAuth: both are refused naming the field.
	for what, call := range map[string]func() error{
		"login":  func() error { _, err := c.LoginServer(ctx, "a", &LoginOptions{NoWait: true}); return err },
		"logout": func() error { _, err := c.LogoutServer(ctx, "a"); return err },
	} {
		err := call()
		var e *Error
		if !IsCode(err, CodeInvalidParams) || !errors.As(err, &e) || e.Data["field"] != "name" {
			t.Errorf("%s of a stdio server: %v", what, err)
		}
	}
}

// Progress of a call reaches its callback, on the calling goroutine, and
// none arrives after the call returned.
func TestProgressCallbackEndsWithTheCall(t *testing.T) {
	c := startClient(t, Options{})
	addFixture(t, c, "a", "--client-requests")
	ctx := testCtx(t, 15*time.Second)
	var calls int
	returned := false
	opts := &CallOptions{Progress: func(u ProgressUpdate) {
		if returned {
			t.Errorf("progress %+v after the call returned", u)
		}
		calls++
		if u.Total == nil || *u.Total != 5 || u.Progress < 1 || u.Progress > 5 {
			t.Errorf("update %+v", u)
		}
	}}
	res, err := c.CallTool(ctx, "mcp__a__progress", map[string]any{"steps": 5}, opts)
	returned = true
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || calls > 5 {
		t.Fatalf("%d progress callbacks for 5 steps", calls)
	}
	var out map[string]any
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out["steps"] != float64(5) {
		t.Fatalf("result %s", res.StructuredContent)
	}
	// Without a callback the server gets no progress token.
	plain, err := c.CallTool(ctx, "mcp__a__progress", map[string]any{"steps": 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var plainOut map[string]any
	if err := json.Unmarshal(plain.StructuredContent, &plainOut); err != nil || plainOut["token"] != nil {
		t.Fatalf("a call without Progress carried a token: %s", plain.StructuredContent)
	}
	c.mu.Lock()
	left := len(c.progress)
	c.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d progress sinks left after the calls", left)
	}
}
