// lifetime_test.go owns the test of the missing-Close case: a host process
// that exits without Close must not leave the sidecar (or its servers)
// running. The host is a tiny program built here, consuming this module
// through a `replace` directive, as a real host would before publication.

package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const forgetfulHost = `package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// usage: forgetful-host default|inherit|pipe FIXTURE-ARGS...
func main() {
	ctx := context.Background()
	opts := client.Options{} // binary from $MCP_SIDECAR_BIN; stderr: a pipe read into slog.Default()
	switch os.Args[1] {
	case "inherit":
		opts.Stderr = os.Stderr // an *os.File: inherited
	case "pipe":
		opts.Stderr = &bytes.Buffer{} // copied through a pipe that dies with this process
	}
	c, err := client.Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := c.AddServer(ctx, "a", client.ServerConfig{Command: os.Getenv("MCP_FIXTURE_BIN"), Args: os.Args[2:]}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", c.PID(), st.PID)
	os.Exit(0) // no Close
}
`

// buildForgetfulHost builds the helper host into a temp dir.
func buildForgetfulHost(t *testing.T, ctx context.Context) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the helper host: %v", err)
	}
	dir := t.TempDir()
	modDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf("module forgetfulhost\n\ngo 1.24\n\nrequire github.com/mcp-sidecar/mcp-sidecar/clients/go v0.0.0\n\nreplace github.com/mcp-sidecar/mcp-sidecar/clients/go => %s\n", modDir)
	for name, body := range map[string]string{"go.mod": gomod, "main.go": forgetfulHost} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "forgetful-host")
	build := exec.CommandContext(ctx, goTool, "build", "-o", exe, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the helper host: %v\n%s", err, out)
	}
	return exe
}

func TestHostExitWithoutCloseStopsTheSidecar(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	exe := buildForgetfulHost(t, ctx)
	for _, mode := range []string{"default", "inherit", "pipe"} {
		t.Run(mode+"-stderr", func(t *testing.T) {
			// The server leaves a grandchild in its process group: only the
			// sidecar's stop sequence (not merely its death) takes it down.
			pidFile := filepath.Join(t.TempDir(), "pids.json")
			host := exec.CommandContext(ctx, exe, mode, "--grandchild", "--pid-file", pidFile)
			host.Env = append(os.Environ(), "MCP_SIDECAR_BIN="+sidecarBin(t), "MCP_FIXTURE_BIN="+fixtureBin(t), "MCP_SIDECAR_LOG=info")
			logPath := filepath.Join(t.TempDir(), "host-stderr.log")
			logFile, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			defer logFile.Close()
			t.Cleanup(func() {
				if t.Failed() {
					b, _ := os.ReadFile(logPath)
					t.Logf("helper host stderr:\n%s", b)
				}
			})
			host.Stderr = logFile // an *os.File: the sidecar inherits it in "inherit" mode
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if err := host.Wait(); err != nil {
				t.Fatalf("helper host: %v (printed %q)", err, line)
			}
			var sidecarPID, serverPID int
			if _, err := fmt.Sscan(strings.TrimSpace(line), &sidecarPID, &serverPID); err != nil {
				t.Fatalf("helper host printed %q: %v", line, err)
			}
			raw, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			var pids struct {
				Grandchildren []int `json:"grandchildren"`
			}
			if err := json.Unmarshal(raw, &pids); err != nil || len(pids.Grandchildren) != 1 {
				t.Fatalf("pid file %s: %v", raw, err)
			}
			grandchild := pids.Grandchildren[0]
			// The host is gone: its end of the sidecar's stdin is closed, so
			// the sidecar reads EOF, stops its server's process group, exits.
			// With its stderr a pipe into the dead host ("default", "pipe"),
			// the sidecar's log lines at EOF fail to be written and are
			// dropped: its stop sequence still runs and takes the grandchild.
			t.Cleanup(func() { // a grandchild left behind is not left running after the test
				if t.Failed() && pidAlive(grandchild) {
					_ = syscall.Kill(grandchild, syscall.SIGKILL)
				}
			})
			waitDead(t, 10*time.Second, sidecarPID, serverPID, grandchild)
		})
	}
}
