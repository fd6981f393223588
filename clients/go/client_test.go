// client_test.go owns the focused tests of the client against the real
// sidecar and fixture: errors, cancellation, notifications, concurrency,
// bounded lines, Close, and the sidecar's death.

package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestErrorFields(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	addFixture(t, c, "a")
	addFixture(t, c, "crashy", "--stderr-line", "last words")
	ctx := testCtx(t, 10*time.Second)

	_, err := c.CallTool(ctx, "mcp__a__nope", map[string]any{}, nil)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %T %v", err, err)
	}
	if e.Code != CodeToolNotFound || e.RPCCode != -32020 || e.Data["name"] != "mcp__a__nope" || e.Message == "" {
		t.Fatalf("TOOL_NOT_FOUND fields: %+v", e)
	}
	if !errors.Is(err, &Error{Code: CodeToolNotFound}) || errors.Is(err, &Error{Code: CodeToolTimeout}) || !IsCode(err, CodeToolNotFound) {
		t.Fatal("errors.Is / IsCode by Code")
	}
	if !strings.Contains(err.Error(), "TOOL_NOT_FOUND") {
		t.Fatalf("Error(): %q", err.Error())
	}

	_, err = c.CallTool(ctx, "mcp__a__echo", map[string]any{"message": 42}, nil)
	if !errors.As(err, &e) || e.Code != CodeInvalidArguments {
		t.Fatalf("want INVALID_ARGUMENTS, got %v", err)
	}
	if v, ok := e.Data["violations"].([]any); !ok || len(v) == 0 {
		t.Fatalf("violations: %#v", e.Data)
	}

	_, err = c.CallTool(ctx, "mcp__a__sleep", map[string]any{"ms": 5000}, &CallOptions{Timeout: 100 * time.Millisecond})
	if !errors.As(err, &e) || e.Code != CodeToolTimeout || e.Data["limit"] != float64(100) || e.Data["setting"] != "timeoutMs" {
		t.Fatalf("want TOOL_TIMEOUT limit 100, got %v %#v", err, e)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatal("a sidecar timeout must not look like a context error")
	}

	_, err = c.CallTool(ctx, "mcp__crashy__exit", nil, nil)
	if !errors.As(err, &e) || e.Code != CodeServerUnavailable {
		t.Fatalf("want SERVER_UNAVAILABLE, got %v", err)
	}
	if !strings.Contains(e.StderrTail(), "last words") {
		t.Fatalf("stderrTail %q (data %#v)", e.StderrTail(), e.Data)
	}
	if _, err := c.AddServer(ctx, "a", ServerConfig{Command: fixtureBin(t)}, nil); !IsCode(err, CodeServerExists) {
		t.Fatalf("want SERVER_EXISTS, got %v", err)
	}
	if _, err := c.AddServer(ctx, "b", ServerConfig{Command: fixtureBin(t), Extra: map[string]any{"comand": "x"}}, nil); !errors.As(err, &e) || e.Code != CodeConfigInvalid || e.Data["field"] == nil {
		t.Fatalf("want CONFIG_INVALID naming the field, got %v", err)
	}
}

func TestFailedStartIsAStatusWithLastError(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	st, err := c.AddServer(testCtx(t, 10*time.Second), "bad", ServerConfig{Command: fixtureBin(t), Args: []string{"--exit-on-start", "3"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateError || st.LastError == nil || st.LastError.Code != CodeServerUnavailable || st.LastError.RPCCode != -32013 {
		t.Fatalf("status %+v lastError %+v", st, st.LastError)
	}
	if st.LastExit == nil || st.LastExit.Code == nil || *st.LastExit.Code != 3 {
		t.Fatalf("lastExit %+v", st.LastExit)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	_, err := Start(testCtx(t, 10*time.Second), Options{BinaryPath: sidecarBin(t), MaxNameLength: 5, Stderr: &syncBuffer{}})
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams || e.Data["field"] != "maxNameLength" {
		t.Fatalf("want INVALID_PARAMS field maxNameLength, got %v", err)
	}
	_, err = Start(testCtx(t, 10*time.Second), Options{BinaryPath: filepath.Join(t.TempDir(), "missing")})
	if !IsCode(err, CodeBinaryNotFound) {
		t.Fatalf("want BINARY_NOT_FOUND, got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Start(ctx, Options{BinaryPath: sidecarBin(t), Stderr: &syncBuffer{}})
	if !IsCode(err, CodeCancelled) || !errors.Is(err, context.Canceled) {
		t.Fatalf("want CANCELLED, got %v", err)
	}
}

func TestInfoAndPing(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{ToolFormat: FormatAnthropic, ClientInfo: &ClientInfo{Name: "go-test", Version: "1"}})
	info := c.Info()
	if info.ProtocolVersion != 1 || info.ServerInfo.Name != "mcp-sidecar" || !info.Capabilities.Cancellation {
		t.Fatalf("info %+v", info)
	}
	if err := c.Ping(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
}

// recorder captures the methods the writer sent, in order.
type recorder struct {
	mu    sync.Mutex
	lines []string
	calls chan int64
}

func newRecorder() *recorder { return &recorder{calls: make(chan int64, 16)} }

func (r *recorder) hook(method string, id int64) {
	r.mu.Lock()
	r.lines = append(r.lines, method)
	r.mu.Unlock()
	if method == "tools/call" {
		r.calls <- id
	}
}

func (r *recorder) sent(method string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.lines {
		if m == method {
			return true
		}
	}
	return false
}

func TestCancelSendsNotificationsCancelled(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	c := startClient(t, Options{afterWrite: rec.hook})
	st := addFixture(t, c, "a")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "mcp__a__sleep", map[string]any{"ms": 10000}, nil)
		done <- err
	}()
	select {
	case <-rec.calls:
	case <-time.After(5 * time.Second):
		t.Fatal("call not written")
	}
	// A cancel that overtakes the call inside the sidecar never reaches the
	// server (nothing to cancel there), so wait until the server is
	// sleeping: the fixture runs each sleep on a thread named "sleep".
	eventually(t, 5*time.Second, "the fixture's sleep thread", func() bool { return hasThread(st.PID, "sleep") })
	cancel()
	start := time.Now()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("cancelled call did not return at once")
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("cancel took %v", elapsed)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("want CANCELLED matching context.Canceled, got %v", err)
	}
	// The sidecar forwarded the cancel to the server, which logs it.
	eventually(t, 5*time.Second, "`cancelled` in the fixture's stderrTail", func() bool {
		list, err := c.ListServers(testCtx(t, 5*time.Second))
		return err == nil && len(list) == 1 && strings.Contains(list[0].StderrTail, "cancelled ")
	})
	if !rec.sent("notifications/cancelled") {
		t.Fatal("notifications/cancelled was not written")
	}
	res, err := c.CallTool(testCtx(t, 5*time.Second), "mcp__a__echo", map[string]any{"message": "after"}, nil)
	if err != nil || res.Text != "after" {
		t.Fatalf("after cancel: %v %+v", err, res)
	}
}

func TestDeadlineIsCancelledWithDeadlineExceeded(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	addFixture(t, c, "a")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.CallTool(ctx, "mcp__a__sleep", map[string]any{"ms": 10000}, nil)
	if !IsCode(err, CodeCancelled) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want CANCELLED matching DeadlineExceeded, got %v", err)
	}
}

func TestNotificationsChannel(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	addFixture(t, c, "a")
	// Every notification caused by servers/add precedes its response, and
	// the reader queues notifications before it delivers a response.
	var got []Notification
	for len(c.Notifications()) > 0 {
		got = append(got, <-c.Notifications())
	}
	if len(got) < 3 {
		t.Fatalf("notifications: %+v", got)
	}
	last := got[len(got)-1]
	if last.Method != MethodServersChanged || last.ServersChanged == nil || last.ServersChanged.Status.State != StateReady || last.ServersChanged.Status.Name != "a" {
		t.Fatalf("last notification %+v", last)
	}
	var tools *ToolsChanged
	for _, n := range got {
		if n.ToolsChanged != nil {
			tools = n.ToolsChanged
		}
	}
	if tools == nil || len(tools.Added) != 7 || !strings.HasPrefix(tools.Fingerprint, "sha256:") {
		t.Fatalf("tools/changed %+v", tools)
	}
	if got[0].ServersChanged == nil || got[0].ServersChanged.Status.State != StateStarting {
		t.Fatalf("first notification %+v", got[0])
	}
	if err := c.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Close delivers the stop notifications, then closes the channel.
	var sawStopped bool
	timeout := time.After(5 * time.Second)
	for {
		select {
		case n, ok := <-c.Notifications():
			if !ok {
				if !sawStopped {
					t.Fatal("no stopped notification before the channel closed")
				}
				return
			}
			if n.ServersChanged != nil && n.ServersChanged.Status.State == StateStopped {
				sawStopped = true
			}
		case <-timeout:
			t.Fatal("notification channel not closed after Close")
		}
	}
}

func TestNotificationOverflowDropsOldest(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{NotificationBuffer: 2})
	addFixture(t, c, "a") // >= 4 notifications, none read
	if len(c.Notifications()) != 2 || c.DroppedNotifications() < 2 {
		t.Fatalf("queued %d, dropped %d", len(c.Notifications()), c.DroppedNotifications())
	}
	first, second := <-c.Notifications(), <-c.Notifications()
	if first.ServersChanged != nil && first.ServersChanged.Status.State == StateStarting && first.ServersChanged.Status.PID == 0 {
		t.Fatalf("the oldest notification was kept: %+v", first.ServersChanged.Status)
	}
	if second.ServersChanged == nil || second.ServersChanged.Status.State != StateReady {
		t.Fatalf("newest kept should be servers/changed ready, got %+v", second)
	}
	// Responses kept flowing although nobody read the channel.
	if err := c.Ping(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentCallsMatchById(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	addFixture(t, c, "a")
	addFixture(t, c, "b")
	ctx := testCtx(t, 30*time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 64*10)
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				switch i % 5 {
				case 3:
					if err := c.Ping(ctx); err != nil {
						errs <- err
					}
				case 4:
					list, err := c.ListTools(ctx, &ListToolsOptions{Servers: []string{"b"}})
					if err != nil || len(list.Tools) != 7 {
						errs <- fmt.Errorf("ListTools: %v", err)
					}
				default:
					server := []string{"a", "b"}[g%2]
					msg := fmt.Sprintf("g%d-i%d", g, i)
					res, err := c.CallTool(ctx, "mcp__"+server+"__echo", map[string]any{"message": msg}, nil)
					if err != nil {
						errs <- err
					} else if res.Text != msg || res.Server != server || res.OutputString() != msg {
						errs <- fmt.Errorf("got %q from %s, want %q", res.Text, res.Server, msg)
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestResponseOverMaxLineBytes(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{MaxLineBytes: 4096})
	addFixture(t, c, "a") // its status lines are well under 4 KiB
	ctx := testCtx(t, 10*time.Second)
	_, err := c.CallTool(ctx, "mcp__a__large", map[string]any{"bytes": 10000}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeLineTooLarge || e.Data["limit"] != float64(4096) || e.Data["size"].(float64) < 10000 {
		t.Fatalf("want LINE_TOO_LARGE, got %v %#v", err, e)
	}
	res, err := c.CallTool(ctx, "mcp__a__echo", map[string]any{"message": "still fine"}, nil)
	if err != nil || res.Text != "still fine" {
		t.Fatalf("after an over-long line: %v", err)
	}
}

func TestStderrGoesToTheWriter(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	c := startClient(t, Options{Stderr: &stderr, Args: []string{"--log", "debug"}})
	addFixture(t, c, "a")
	if err := c.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "server ready") {
		t.Fatalf("sidecar logs not in Options.Stderr: %q", stderr.String())
	}
}

func TestCloseIsIdempotentAndLaterCallsFail(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	st := addFixture(t, c, "a")
	if err := c.Close(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(testCtx(t, time.Second)); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if c.ExitCode() != 0 {
		t.Fatalf("exit code %d", c.ExitCode())
	}
	if err := c.Ping(testCtx(t, time.Second)); !IsCode(err, CodeClosed) {
		t.Fatalf("want CLOSED, got %v", err)
	}
	waitDead(t, 5*time.Second, st.PID, c.PID())
}

func TestCloseKillsASidecarThatIgnoresShutdown(t *testing.T) {
	t.Parallel()
	// A fake sidecar: answers initialize, then neither reads nor exits.
	script := filepath.Join(t.TempDir(), "stubborn-sidecar")
	body := `#!/bin/sh
IFS= read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"serverInfo":{"name":"stubborn","version":"0"},"capabilities":{"toolFormats":["openai"],"transports":["stdio"],"cancellation":true}}}\n' "$id"
trap '' TERM
exec sleep 600
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, Options{BinaryPath: script, CloseTimeout: 300 * time.Millisecond})
	if c.Info().ServerInfo.Name != "stubborn" {
		t.Fatalf("info %+v", c.Info())
	}
	start := time.Now()
	err := c.Close(testCtx(t, 10*time.Second))
	if !IsCode(err, CodeKilled) {
		t.Fatalf("want KILLED, got %v", err)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Fatalf("Close took %v", elapsed)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	waitDead(t, 2*time.Second, c.PID())
}

func TestSidecarDeathFailsCalls(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	c := startClient(t, Options{afterWrite: rec.hook})
	addFixture(t, c, "a")
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "mcp__a__sleep", map[string]any{"ms": 10000}, nil)
		done <- err
	}()
	<-rec.calls
	if err := c.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeSidecarExited || !strings.Contains(e.Message, "killed") {
			t.Fatalf("want SIDECAR_EXITED, got %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("pending call not failed after the sidecar died")
	}
	if err := c.Ping(testCtx(t, time.Second)); !IsCode(err, CodeSidecarExited) {
		t.Fatalf("later call: %v", err)
	}
	if err := c.Close(testCtx(t, 5*time.Second)); !IsCode(err, CodeSidecarExited) {
		t.Fatalf("Close: %v", err)
	}
}

func TestAddServerNoWaitReportsThroughNotifications(t *testing.T) {
	t.Parallel()
	c := startClient(t, Options{})
	st, err := c.AddServer(testCtx(t, 10*time.Second), "a", ServerConfig{Command: fixtureBin(t)}, &AddServerOptions{NoWait: true})
	if err != nil || st.State != StateStarting {
		t.Fatalf("NoWait: %+v %v", st, err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case n := <-c.Notifications():
			if n.ServersChanged != nil && n.ServersChanged.Status.State == StateReady {
				if n.ServersChanged.Status.PID == 0 || n.ServersChanged.Status.StartedAt.IsZero() {
					t.Fatalf("ready status %+v", n.ServersChanged.Status)
				}
				return
			}
		case <-timeout:
			t.Fatal("no ready notification")
		}
	}
}
