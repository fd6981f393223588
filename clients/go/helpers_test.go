// helpers_test.go owns what the tests share: locating the sidecar and
// fixture binaries, starting a client with cleanup, bounded waits, and
// checking whether a process is still alive.

package client

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testBinary returns $env or ../../target/debug/name, as an absolute path.
func testBinary(t testing.TB, env, name string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join("..", "..", "target", "debug", name)
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

func sidecarBin(t testing.TB) string { return testBinary(t, "MCP_SIDECAR_BIN", "mcp-sidecar") }
func fixtureBin(t testing.TB) string { return testBinary(t, "MCP_FIXTURE_BIN", "mcp-fixture") }

// testCtx is a context bounded well inside the suite's time budget.
func testCtx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startClient starts a sidecar with the test binaries; Close runs at cleanup.
func startClient(t testing.TB, opts Options) *Client {
	t.Helper()
	if opts.BinaryPath == "" {
		opts.BinaryPath = sidecarBin(t)
	}
	if opts.Stderr == nil {
		opts.Stderr = &syncBuffer{}
	}
	c, err := Start(testCtx(t, 10*time.Second), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// addFixture adds a fixture server and requires it to be ready.
func addFixture(t testing.TB, c *Client, name string, args ...string) *ServerStatus {
	t.Helper()
	st, err := c.AddServer(testCtx(t, 10*time.Second), name, ServerConfig{Command: fixtureBin(t), Args: args}, nil)
	if err != nil {
		t.Fatalf("AddServer %s: %v", name, err)
	}
	if st.State != StateReady {
		t.Fatalf("AddServer %s: state %s, lastError %v", name, st.State, st.LastError)
	}
	return st
}

// syncBuffer is an io.Writer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pidAlive reports whether pid names a live (non-zombie) process.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil {
		return err == syscall.EPERM
	}
	// A zombie (exited, not yet reaped, e.g. reparented to a PID 1 that does
	// not reap) is dead for our purposes.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	}
	return true
}

// waitDead polls (there is no event for another process's death) until
// every pid is gone, failing after d.
func waitDead(t testing.TB, d time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		var alive []int
		for _, pid := range pids {
			if pidAlive(pid) {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes still alive after %v: %v", d, alive)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventually polls cond (for state with no event, e.g. a stderr tail) until
// it holds, failing after d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hasThread reports whether process pid has a thread named name (Linux).
func hasThread(pid int, name string) bool {
	comms, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/comm", pid))
	for _, f := range comms {
		if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) == name {
			return true
		}
	}
	return false
}
