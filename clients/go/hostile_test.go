// hostile_test.go owns the run of the shared hostile scenarios
// (../../proto/scenarios/hostile/hostile.json): the client against a fake
// sidecar that misbehaves in one way each time, every step bounded by the
// file's guard so that a hang fails the scenario instead of the suite.

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const hostilePath = "../../proto/scenarios/hostile/hostile.json"

type hostileFile struct {
	Version     int                          `json:"version"`
	Sidecar     string                       `json:"sidecar"`
	StepGuardMs int                          `json:"stepGuardMs"`
	Codes       map[string]map[string]string `json:"codes"`
	Scenarios   []hostileScenario            `json:"scenarios"`
}

type hostileScenario struct {
	Name  string   `json:"name"`
	Mode  string   `json:"mode"`
	Args  []string `json:"args"`
	Start struct {
		StartTimeoutMs  int    `json:"startTimeoutMs"`
		MaxLineBytes    int    `json:"maxLineBytes"`
		CloseTimeoutMs  int    `json:"closeTimeoutMs"`
		ExpectError     string `json:"expectError"`
		MessageContains string `json:"messageContains"`
	} `json:"start"`
	Steps []hostileStep `json:"steps"`
}

type hostileStep struct {
	Op              string          `json:"op"`
	Expect          json.RawMessage `json:"expect"`
	ExpectError     string          `json:"expectError"`
	MessageContains string          `json:"messageContains"`
	ExpectExit      *int            `json:"expectExit"`
}

func loadHostile(t *testing.T) hostileFile {
	t.Helper()
	raw, err := os.ReadFile(hostilePath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields() // a field this runner does not know fails it
	var f hostileFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", hostilePath, err)
	}
	if f.Version != 1 || len(f.Scenarios) == 0 {
		t.Fatalf("%s: version %d, %d scenarios", hostilePath, f.Version, len(f.Scenarios))
	}
	return f
}

func TestHostileSidecars(t *testing.T) {
	f := loadHostile(t)
	sidecar, err := filepath.Abs(filepath.Join(filepath.Dir(hostilePath), f.Sidecar))
	if err != nil {
		t.Fatal(err)
	}
	guard := time.Duration(f.StepGuardMs) * time.Millisecond
	for _, sc := range f.Scenarios {
		sc := sc
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, f, sidecar, guard, sc)
		})
	}
}

// within runs do and fails the test if it has not returned within guard.
func within[T any](t *testing.T, guard time.Duration, what string, do func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- do() }()
	select {
	case v := <-done:
		return v
	case <-time.After(guard):
		t.Fatalf("%s did not return within %v", what, guard)
		panic("unreachable")
	}
}

// hostileCode is the code this client gives for one of the file's kinds.
func hostileCode(t *testing.T, f hostileFile, kind string) string {
	code := f.Codes[kind]["go"]
	if code == "" {
		t.Fatalf("no go code for %q", kind)
	}
	return code
}

func checkHostileError(t *testing.T, f hostileFile, what string, err error, kind, contains string) {
	t.Helper()
	want := hostileCode(t, f, kind)
	var e *Error
	if !errors.As(err, &e) || e.Code != want {
		t.Fatalf("%s: want %s, got %v", what, want, err)
	}
	if !strings.Contains(e.Message, contains) {
		t.Fatalf("%s: the message %q does not contain %q", what, e.Message, contains)
	}
}

func runHostile(t *testing.T, f hostileFile, sidecar string, guard time.Duration, sc hostileScenario) {
	opts := Options{
		BinaryPath:   sidecar,
		Args:         append([]string{sc.Mode}, sc.Args...),
		MaxLineBytes: sc.Start.MaxLineBytes,
		CloseTimeout: time.Duration(sc.Start.CloseTimeoutMs) * time.Millisecond,
		Stderr:       &syncBuffer{},
	}
	ctx := context.Background() // no bound unless the scenario gives one
	if sc.Start.StartTimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(sc.Start.StartTimeoutMs)*time.Millisecond)
		defer cancel()
	}
	type started struct {
		c   *Client
		err error
	}
	s := within(t, guard, "Start", func() started {
		c, err := Start(ctx, opts)
		return started{c, err}
	})
	if sc.Start.ExpectError != "" {
		checkHostileError(t, f, "Start", s.err, sc.Start.ExpectError, sc.Start.MessageContains)
		return
	}
	if s.err != nil {
		t.Fatalf("Start: %v", s.err)
	}
	c := s.c
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	for i, st := range sc.Steps {
		what := fmt.Sprintf("step %d (%s)", i, st.Op)
		switch st.Op {
		case "listServers":
			type listed struct {
				v   []ServerStatus
				err error
			}
			r := within(t, guard, what, func() listed {
				v, err := c.ListServers(context.Background())
				return listed{v, err}
			})
			if st.ExpectError != "" {
				checkHostileError(t, f, what, r.err, st.ExpectError, st.MessageContains)
				continue
			}
			if r.err != nil {
				t.Fatalf("%s: %v", what, r.err)
			}
			if r.v == nil {
				r.v = []ServerStatus{}
			}
			if err := matchJSON(st.Expect, map[string]any{"servers": r.v}); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		case "close":
			err := within(t, guard, what, func() error { return c.Close(context.Background()) })
			if st.ExpectExit != nil && (err != nil || c.ExitCode() != *st.ExpectExit) {
				t.Fatalf("%s: want exit %d, got %v (exit %d)", what, *st.ExpectExit, err, c.ExitCode())
			}
		default:
			t.Fatalf("%s: unknown op", what)
		}
	}
}

// An over-long line whose id comes after the bound cannot be matched to its
// call: the client closes (a reader that dropped it left the call waiting
// forever), every call fails at once, and the sidecar still exits by itself.
func TestOverLongLineWithoutItsIDClosesTheClient(t *testing.T) {
	t.Parallel()
	f := loadHostile(t)
	sidecar, err := filepath.Abs(filepath.Join(filepath.Dir(hostilePath), f.Sidecar))
	if err != nil {
		t.Fatal(err)
	}
	guard := time.Duration(f.StepGuardMs) * time.Millisecond
	c, err := Start(testCtx(t, guard), Options{
		BinaryPath:   sidecar,
		Args:         []string{"huge-line", "--bytes", "8388608", "--id-last"},
		MaxLineBytes: 1 << 20,
		Stderr:       &syncBuffer{},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	for i := 0; i < 2; i++ {
		err := within(t, guard, "ListServers", func() error {
			_, err := c.ListServers(context.Background())
			return err
		})
		if !IsCode(err, CodeLineTooLarge) || !strings.Contains(err.Error(), "does not say which call it answers") {
			t.Fatalf("call %d: want LINE_TOO_LARGE closing the client, got %v", i, err)
		}
	}
	if err := within(t, guard, "Close", func() error { return c.Close(context.Background()) }); err != nil || c.ExitCode() != 0 {
		t.Fatalf("Close: %v (exit %d)", err, c.ExitCode())
	}
}
