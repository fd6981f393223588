// discover_test.go owns the tests of binary discovery: the search order,
// fail-fast on a wrong explicit path, and the not-found error.

package client

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeExe writes an executable (or, with mode 0o644, a plain) file.
func fakeExe(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiscoveryOrder(t *testing.T) {
	root := t.TempDir()
	exeDir := filepath.Join(root, "host")
	module := filepath.Join(root, "repo", "clients", "go")
	onPath := fakeExe(t, filepath.Join(root, "pathdir", binaryName()), 0o755)
	explicit := fakeExe(t, filepath.Join(root, "explicit", binaryName()), 0o755)
	fromEnv := fakeExe(t, filepath.Join(root, "env", binaryName()), 0o755)
	env := fromEnv
	s := search{
		getenv:     func(k string) string { return map[string]string{EnvBinary: env}[k] },
		executable: func() (string, error) { return filepath.Join(exeDir, "host-app"), nil },
		moduleDir:  module,
		lookPath: func(name string) (string, error) {
			if _, err := os.Stat(onPath); err == nil {
				return onPath, nil
			}
			return "", errors.New("not on PATH")
		},
	}
	want := func(step, got, want string, err error) {
		t.Helper()
		if err != nil || got != want {
			t.Fatalf("%s: got %q (%v), want %q", step, got, err, want)
		}
	}
	nextToExe := fakeExe(t, filepath.Join(exeDir, binaryName()), 0o755)
	inBin := fakeExe(t, filepath.Join(module, "bin", binaryName()), 0o755)
	release := fakeExe(t, filepath.Join(root, "repo", "target", "release", binaryName()), 0o755)
	debug := fakeExe(t, filepath.Join(root, "repo", "target", "debug", binaryName()), 0o755)

	got, err := s.find(explicit)
	want("explicit", got, explicit, err)
	got, err = s.find("")
	want("env", got, fromEnv, err)
	env = ""
	for _, c := range []struct{ name, path string }{
		{"next to the executable", nextToExe},
		{"module bin/", inBin},
		{"target/release", release},
		{"target/debug", debug},
	} {
		got, err = s.find("")
		want(c.name, got, c.path, err)
		os.Remove(c.path)
	}
	got, err = s.find("")
	want("PATH", got, onPath, err)
	os.Remove(onPath)

	_, err = s.find("")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeBinaryNotFound || e.RPCCode != 0 {
		t.Fatalf("want BINARY_NOT_FOUND, got %v", err)
	}
	for _, place := range []string{"Options.BinaryPath", "$" + EnvBinary, nextToExe, inBin, release, debug, "PATH"} {
		if !strings.Contains(e.Message, place) {
			t.Errorf("error does not list %q: %s", place, e.Message)
		}
	}
	if searched, _ := e.Data["searched"].([]string); len(searched) != 7 {
		t.Errorf("Data[searched] = %v", e.Data["searched"])
	}
}

func TestDiscoveryExplicitPathsFailFast(t *testing.T) {
	dir := t.TempDir()
	plain := fakeExe(t, filepath.Join(dir, "not-executable"), 0o644)
	s := search{
		getenv:     func(string) string { return "" },
		executable: func() (string, error) { return "", errors.New("no executable") },
		lookPath:   func(string) (string, error) { return "/usr/bin/mcp-sidecar", nil },
	}
	for _, path := range []string{filepath.Join(dir, "missing"), plain, dir} {
		if _, err := s.find(path); !IsCode(err, CodeBinaryNotFound) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: want BINARY_NOT_FOUND naming it, got %v", path, err)
		}
	}
	s.getenv = func(k string) string { return map[string]string{EnvBinary: plain}[k] }
	if _, err := s.find(""); !IsCode(err, CodeBinaryNotFound) || !strings.Contains(err.Error(), "$"+EnvBinary) {
		t.Errorf("env: want BINARY_NOT_FOUND naming $%s, got %v", EnvBinary, err)
	}
	// Unknown module dir and executable are reported as such.
	s.getenv = func(string) string { return "" }
	s.lookPath = func(string) (string, error) { return "", errors.New("no") }
	_, err := s.find("")
	if err == nil || !strings.Contains(err.Error(), "-trimpath") || !strings.Contains(err.Error(), "no executable") {
		t.Errorf("got %v", err)
	}
}

func TestFindBinaryFromEnvironment(t *testing.T) {
	bin := sidecarBin(t)
	t.Setenv(EnvBinary, bin)
	got, err := FindBinary("")
	if err != nil || got != bin {
		t.Fatalf("FindBinary: %q %v", got, err)
	}
	if moduleDir() == "" || filepath.Base(moduleDir()) != "go" {
		t.Fatalf("moduleDir() = %q", moduleDir())
	}
}
