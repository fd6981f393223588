// sidecarlog_test.go owns the tests of the sidecar's own logs: a client
// started with no log option writes none of the sidecar's INFO lines to the
// host's stderr, a warning the sidecar logs (a server that cannot start)
// reaches Options.Logger as a slog record, LogLevel, both JSON shapes of a
// line, and the flags added next to the caller's own.

package client

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingHandler keeps every record it is given, at any level.
type recordingHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler            { return h }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *recordingHandler) all() []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]slog.Record(nil), h.records...)
}

func attrs(r slog.Record) map[string]any {
	m := map[string]any{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.Any()
		return true
	})
	return m
}

var missingServer = ServerConfig{Command: "/nonexistent/mcp-server"}

// TestHelperDefaultLogsHost is not a test: run by TestDefaultClientKeepsInfoOutOfStderr
// as a separate host process (the env var set), it starts a client with no
// log option, a server that starts and one that cannot, calls a tool, and closes.
func TestHelperDefaultLogsHost(t *testing.T) {
	if os.Getenv("MCP_SIDECAR_TEST_DEFAULT_LOGS_HOST") != "1" {
		t.Skip("run by TestDefaultClientKeepsInfoOutOfStderr")
	}
	ctx := testCtx(t, 30*time.Second)
	c, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	addFixture(t, c, "fx")
	if _, err := c.AddServer(ctx, "missing", missingServer, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "mcp__fx__echo", map[string]any{"message": "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultClientKeepsInfoOutOfStderr(t *testing.T) {
	t.Parallel()
	host := exec.CommandContext(testCtx(t, 40*time.Second), os.Args[0], "-test.run=^TestHelperDefaultLogsHost$", "-test.count=1")
	host.Env = append(os.Environ(), "MCP_SIDECAR_TEST_DEFAULT_LOGS_HOST=1", "MCP_SIDECAR_BIN="+sidecarBin(t),
		"MCP_FIXTURE_BIN="+fixtureBin(t), "MCP_SIDECAR_LOG=")
	var stdout, stderr bytes.Buffer
	host.Stdout, host.Stderr = &stdout, &stderr
	if err := host.Run(); err != nil {
		t.Fatalf("helper host: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "PASS") {
		t.Fatalf("the helper host ran nothing:\n%s", stdout.String())
	}
	got := stderr.String()
	if regexp.MustCompile(`INFO|host initialized|server ready`).MatchString(got) {
		t.Fatalf("the sidecar's info lines reached the host's stderr:\n%s", got)
	}
	// The one warning, through slog.Default() (the log package's format).
	lines := strings.Split(strings.TrimSpace(got), "\n")
	want := regexp.MustCompile("^\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d WARN start failed: server `missing`: command `/nonexistent/mcp-server` not found .* server=missing")
	if len(lines) != 1 || !want.MatchString(lines[0]) {
		t.Fatalf("stderr is not the one warning through slog:\n%s", got)
	}
}

func TestSidecarWarningReachesTheLogger(t *testing.T) {
	t.Parallel()
	h := &recordingHandler{}
	ctx := testCtx(t, 20*time.Second)
	c, err := Start(ctx, Options{BinaryPath: sidecarBin(t), Logger: slog.New(h)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.AddServer(ctx, "missing", missingServer, nil)
	if err != nil || st.State != StateError {
		t.Fatalf("AddServer: %v, %+v", err, st)
	}
	if err := c.Close(ctx); err != nil { // every stderr line has reached the logger once Close returns
		t.Fatal(err)
	}
	var warning *slog.Record
	for _, r := range h.all() {
		if r.Level < slog.LevelWarn {
			t.Errorf("a record below the default level warn: %s %q", r.Level, r.Message)
		}
		if r.Level == slog.LevelWarn && strings.HasPrefix(r.Message, "start failed: server `missing`") {
			warning = &r
		}
	}
	if warning == nil {
		t.Fatalf("no warning about the server among %d records", len(h.all()))
	}
	if got := attrs(*warning)["server"]; got != "missing" {
		t.Errorf("server attribute = %v, want missing (attrs %v)", got, attrs(*warning))
	}
	if since := time.Since(warning.Time); since < 0 || since > time.Minute {
		t.Errorf("record time %v is not the sidecar's timestamp of a moment ago", warning.Time)
	}
}

func TestLogLevelInfoLetsInfoThrough(t *testing.T) {
	t.Parallel()
	h := &recordingHandler{}
	ctx := testCtx(t, 20*time.Second)
	c, err := Start(ctx, Options{BinaryPath: sidecarBin(t), Logger: slog.New(h), LogLevel: "info", ClientInfo: &ClientInfo{Name: "log-test", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	addFixture(t, c, "fx")
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var initialized, ready bool
	for _, r := range h.all() {
		initialized = initialized || (r.Level == slog.LevelInfo && r.Message == "host initialized" && attrs(r)["client"] == "log-test")
		ready = ready || (r.Level == slog.LevelInfo && r.Message == "server ready" && attrs(r)["server"] == "fx")
	}
	if !initialized || !ready {
		t.Fatalf("host initialized %v, server ready %v, in %d records", initialized, ready, len(h.all()))
	}
}

func TestParseLogLine(t *testing.T) {
	cases := []struct {
		line  string
		level slog.Level
		msg   string
		attrs map[string]any
	}{
		// Today's shape: the message under "fields".
		{`{"timestamp":"2026-01-01T00:00:00.5Z","level":"WARN","fields":{"message":"start failed","server":"s","generation":1}}`,
			slog.LevelWarn, "start failed", map[string]any{"server": "s", "generation": float64(1)}},
		// The flat shape: message, target, the event's and its spans' fields at the top level.
		{`{"timestamp":"2026-01-01T00:00:00Z","level":"ERROR","target":"mcp_sidecar::supervisor","message":"gone","server":"s"}`,
			slog.LevelError, "gone", map[string]any{"target": "mcp_sidecar::supervisor", "server": "s"}},
		// A span list: its fields too, the event's own winning.
		{`{"level":"TRACE","fields":{"message":"m","server":"inner"},"spans":[{"name":"serve","server":"outer","host":"h"}]}`,
			LevelTrace, "m", map[string]any{"server": "inner", "host": "h"}},
		// A panic message is never dropped.
		{"thread 'main' panicked at src/main.rs:1:1", slog.LevelError, "thread 'main' panicked at src/main.rs:1:1", map[string]any{}},
	}
	for _, tc := range cases {
		r := parseLogLine(tc.line)
		if r.Level != tc.level || r.Message != tc.msg || !reflect.DeepEqual(attrs(r), tc.attrs) {
			t.Errorf("%s:\n got %s %q %v\nwant %s %q %v", tc.line, r.Level, r.Message, attrs(r), tc.level, tc.msg, tc.attrs)
		}
	}
	if got := parseLogLine(cases[0].line).Time; !got.Equal(time.Date(2026, 1, 1, 0, 0, 0, 5e8, time.UTC)) {
		t.Errorf("time = %v, want the line's timestamp", got)
	}
}

func TestLogFlags(t *testing.T) {
	cases := []struct {
		args, env  []string
		level      string
		structured bool
		want       []string
	}{
		{nil, []string{}, "", true, []string{"--log", "warn", "--log-format", "json"}},
		{nil, []string{}, "debug", false, []string{"--log", "debug"}},
		{nil, []string{}, LogWarning, false, []string{"--log", "warn"}},
		{nil, []string{"MCP_SIDECAR_LOG=info"}, "", true, []string{"--log-format", "json"}},
		{nil, []string{"MCP_SIDECAR_LOG=info", "MCP_SIDECAR_LOG="}, "", false, []string{"--log", "warn"}},
		{nil, []string{"MCP_SIDECAR_LOG=info"}, "error", true, []string{"--log", "error", "--log-format", "json"}},
		{[]string{"--log", "trace"}, []string{}, "error", true, []string{"--log-format", "json"}},
		{[]string{"--log=trace", "--log-format=text"}, []string{}, "", true, nil},
	}
	for _, tc := range cases {
		if got := logFlags(tc.args, tc.env, tc.level, tc.structured); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("logFlags(%q, %q, %q, %v) = %q, want %q", tc.args, tc.env, tc.level, tc.structured, got, tc.want)
		}
	}
}

func TestReadBoundedLineCutsALongLine(t *testing.T) {
	var got []string
	h := &recordingHandler{}
	done := make(chan struct{})
	long := strings.Repeat("x", maxLogLineBytes+100)
	readSidecarLog(strings.NewReader(long+"\n\n"+`{"level":"WARN","fields":{"message":"next"}}`), slog.New(h), done)
	<-done
	for _, r := range h.all() {
		got = append(got, r.Message)
	}
	if len(got) != 2 || len(got[0]) != maxLogLineBytes || got[1] != "next" {
		t.Fatalf("got %d records, lengths %v", len(got), func() (n []int) {
			for _, m := range got {
				n = append(n, len(m))
			}
			return
		}())
	}
}
