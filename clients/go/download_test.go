// download_test.go owns the tests of the release download: a local HTTP
// server stands in for the release host and serves a real sidecar binary
// packed as the release packs it; the right sum gives a binary that runs, a
// wrong one is refused before extraction, offline mode never asks the host.

package client

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	packedOnce    sync.Once
	packedSidecar []byte
)

// packedRelease is the real sidecar the suite runs ($MCP_SIDECAR_BIN, else
// the checkout's target/debug build) packed as a release archive, made once.
func packedRelease(t *testing.T) []byte {
	t.Helper()
	packedOnce.Do(func() { packedSidecar = tarGz(t, "mcp-sidecar", sidecarBinary(t)) })
	if packedSidecar == nil {
		t.Fatal("the sidecar binary could not be packed")
	}
	return packedSidecar
}

func sidecarBinary(t *testing.T) []byte {
	t.Helper()
	path := os.Getenv(EnvBinary)
	if path == "" {
		path = filepath.Join(moduleDir(), "..", "..", "target", "debug", "mcp-sidecar")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the sidecar binary to pack (%v): run cargo build --workspace or set $%s", err, EnvBinary)
	}
	return data
}

func tarGz(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // the debug build is large
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// releaseHost serves archives by name under /v{version}/ and counts requests.
type releaseHost struct {
	*httptest.Server
	requests atomic.Int64
}

func newReleaseHost(t *testing.T, archives map[string][]byte) *releaseHost {
	h := &releaseHost{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		data, ok := archives[strings.TrimPrefix(r.URL.Path, "/v"+releaseVersion+"/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(h.Close)
	return h
}

func linuxRelease(host *releaseHost, cache string, sums map[string]string) release {
	return release{
		goos: "linux", goarch: "amd64", sums: sums, maxArchive: maxArchiveBytes,
		opts:   DownloadOptions{BaseURL: host.URL, CacheDir: cache},
		getenv: func(string) string { return "" },
	}
}

// executables lists the files under dir with an execute bit.
func executables(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil && info.Mode().Perm()&0o111 != 0 {
				found = append(found, path)
			}
		}
		return nil
	})
	return found
}

func TestDownloadChecksPinnedSumThenRuns(t *testing.T) {
	archive := ArchiveName(releaseVersion, "linux", "amd64")
	if archive != "mcp-sidecar-v"+releaseVersion+"-x86_64-unknown-linux-musl.tar.gz" {
		t.Fatalf("archive name %q", archive)
	}
	packed := packedRelease(t)
	host := newReleaseHost(t, map[string][]byte{archive: packed})
	cache := t.TempDir()
	r := linuxRelease(host, cache, map[string]string{archive: sum(packed)})

	path, err := r.fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, releaseVersion, "mcp-sidecar"); path != want {
		t.Fatalf("path %s, want %s", path, want)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "mcp-sidecar ") {
		t.Fatalf("%s --version: %q, %v", path, out, err)
	}
	// Nothing but the binary is left in the cache, and a second use asks nobody.
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("cache holds %d entries", len(entries))
	}
	again, err := r.fetch(context.Background())
	if err != nil || again != path || host.requests.Load() != 1 {
		t.Fatalf("second fetch: %s, %v, %d requests", again, err, host.requests.Load())
	}

	// FindBinary's last step is the download, reached when nothing else is found.
	s := search{
		getenv:     func(string) string { return "" },
		executable: func() (string, error) { return filepath.Join(t.TempDir(), "app"), nil },
		lookPath:   func(string) (string, error) { return "", exec.ErrNotFound },
		download:   func() (string, error) { return r.fetch(context.Background()) },
	}
	if found, err := s.find(""); err != nil || found != path {
		t.Fatalf("find: %s, %v", found, err)
	}
	// And a client started from it works.
	c, err := Start(context.Background(), Options{BinaryPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListServers(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close(context.Background())
}

func TestDownloadRefusesWrongChecksum(t *testing.T) {
	archive := ArchiveName(releaseVersion, "linux", "amd64")
	packed := packedRelease(t)
	host := newReleaseHost(t, map[string][]byte{archive: packed})
	cache := t.TempDir()
	pinned := sum([]byte("another archive"))
	r := linuxRelease(host, cache, map[string]string{archive: pinned})

	_, err := r.fetch(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeBinaryNotFound {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{sum(packed), pinned, archive, "refused"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q: %s", want, e.Message)
		}
	}
	if e.Data["sha256"] != sum(packed) || e.Data["pinnedSha256"] != pinned {
		t.Errorf("data %v", e.Data)
	}
	if left := executables(t, cache); len(left) != 0 {
		t.Fatalf("executable files left in the cache: %v", left)
	}
	if entries, _ := os.ReadDir(filepath.Join(cache, releaseVersion)); len(entries) != 0 {
		t.Fatalf("files left in the cache: %v", entries)
	}
	// Through FindBinary, the refusal is the cause of the not-found error.
	s := search{
		getenv:     func(string) string { return "" },
		executable: func() (string, error) { return filepath.Join(t.TempDir(), "app"), nil },
		lookPath:   func(string) (string, error) { return "", exec.ErrNotFound },
		download:   func() (string, error) { return r.fetch(context.Background()) },
	}
	if _, err := s.find(""); err == nil || !strings.Contains(err.Error(), pinned) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("find: %v", err)
	}
}

func TestDownloadOfflineUnpinnedMissingAndOversized(t *testing.T) {
	archive := ArchiveName(releaseVersion, "linux", "amd64")
	packed := tarGz(t, "mcp-sidecar", []byte("#!/bin/sh\n"))
	host := newReleaseHost(t, map[string][]byte{archive: packed, "empty.tar.gz": nil})
	sums := map[string]string{archive: sum(packed)}

	offline := linuxRelease(host, t.TempDir(), sums)
	offline.getenv = func(k string) string { return map[string]string{EnvOffline: "1"}[k] }
	if _, err := offline.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("offline: %v", err)
	}
	offline.getenv = func(string) string { return "" }
	offline.opts.Offline = true
	if _, err := offline.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("Offline option: %v", err)
	}
	if host.requests.Load() != 0 {
		t.Fatalf("offline mode asked the host %d times", host.requests.Load())
	}

	unpinned := linuxRelease(host, t.TempDir(), map[string]string{})
	if _, err := unpinned.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "pins no checksum for "+archive) {
		t.Fatalf("unpinned: %v", err)
	}
	other := linuxRelease(host, t.TempDir(), sums)
	other.goarch = "riscv64"
	if _, err := other.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "no mcp-sidecar release is built for linux/riscv64") {
		t.Fatalf("unsupported: %v", err)
	}
	if host.requests.Load() != 0 {
		t.Fatalf("asked the host %d times", host.requests.Load())
	}

	missing := linuxRelease(host, t.TempDir(), sums)
	missing.opts.BaseURL = host.URL + "/mirror"
	if _, err := missing.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("404: %v", err)
	}
	// The base URL comes from the environment when no option gives it.
	fromEnv := linuxRelease(host, t.TempDir(), sums)
	fromEnv.opts.BaseURL = ""
	fromEnv.getenv = func(k string) string { return map[string]string{EnvDownloadURL: host.URL}[k] }
	if _, err := fromEnv.fetch(context.Background()); err != nil {
		t.Fatalf("base URL from $%s: %v", EnvDownloadURL, err)
	}

	big := linuxRelease(host, t.TempDir(), sums)
	big.maxArchive = int64(len(packed)) - 1
	if _, err := big.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("oversized: %v", err)
	}
	if left := executables(t, big.opts.CacheDir); len(left) != 0 {
		t.Fatalf("left: %v", left)
	}

	wrongName := tarGz(t, "bin/mcp-sidecar", []byte("x"))
	host2 := newReleaseHost(t, map[string][]byte{archive: wrongName})
	nameless := linuxRelease(host2, t.TempDir(), map[string]string{archive: sum(wrongName)})
	if _, err := nameless.fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "holds no mcp-sidecar") {
		t.Fatalf("no top-level entry: %v", err)
	}
}

func TestDownloadWindowsZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("mcp-sidecar.exe")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("MZ fake"))
	zw.Close()
	archive := ArchiveName(releaseVersion, "windows", "amd64")
	if !strings.HasSuffix(archive, "-x86_64-pc-windows-gnu.zip") {
		t.Fatalf("archive %q", archive)
	}
	host := newReleaseHost(t, map[string][]byte{archive: buf.Bytes()})
	r := linuxRelease(host, t.TempDir(), map[string]string{archive: sum(buf.Bytes())})
	r.goos = "windows"
	path, err := r.fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); filepath.Base(path) != "mcp-sidecar.exe" || string(data) != "MZ fake" {
		t.Fatalf("%s holds %q", path, data)
	}
}

// The client downloads the release of the sidecar it was made with.
func TestReleaseVersionIsTheWorkspaceVersion(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join(moduleDir(), "..", "..", "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "\nversion = \""+ReleaseVersion+"\"\n") {
		t.Fatalf("Cargo.toml's workspace version is not %s", ReleaseVersion)
	}
}
