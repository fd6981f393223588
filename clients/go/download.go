// download.go owns obtaining the sidecar binary without a Rust toolchain:
// the release archive of this client's version for this platform, fetched
// once into the user cache, its SHA-256 checked against the sum pinned in
// release_sums.go before a byte of it is extracted, the binary extracted
// through a size bound and renamed into place whole. `go get` cannot build
// Rust; this is what FindBinary falls back to, and what DownloadBinary does
// on request (e.g. in a Dockerfile, so the first Start needs no network).

package client

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

const (
	// EnvOffline, set to a non-empty value other than "0", forbids the
	// download: only a binary already in the cache is used.
	EnvOffline = "MCP_SIDECAR_OFFLINE"
	// EnvDownloadURL replaces DefaultDownloadURL (a mirror of the release
	// assets laid out the same way: {base}/v{version}/{archive}).
	EnvDownloadURL = "MCP_SIDECAR_DOWNLOAD_URL"
	// DefaultDownloadURL is where the project's releases keep their archives.
	DefaultDownloadURL = "https://github.com/mcp-sidecar/mcp-sidecar/releases/download"
	// ReleaseVersion is the sidecar release this client version downloads.
	ReleaseVersion = releaseVersion

	// Bounds on what is read from the release host: the archive (a release
	// archive is ~10 MiB) and the binary inside it.
	maxArchiveBytes  = 256 << 20
	maxBinaryBytes   = 512 << 20
	downloadDeadline = 10 * time.Minute
)

// DownloadOptions tune DownloadBinary; the zero value downloads from the
// project's releases into the user cache unless $MCP_SIDECAR_OFFLINE is set.
type DownloadOptions struct {
	// BaseURL of the release assets; default $MCP_SIDECAR_DOWNLOAD_URL, else
	// DefaultDownloadURL.
	BaseURL string
	// CacheDir holds {version}/mcp-sidecar; default os.UserCacheDir()/mcp-sidecar.
	CacheDir string
	// Offline uses the cache only (as does $MCP_SIDECAR_OFFLINE).
	Offline bool
	// HTTPClient makes the request; default one bounded to 10 minutes.
	HTTPClient *http.Client
}

// release is one platform's archive and where its binary goes; the fields
// tests replace are here rather than in DownloadOptions.
type release struct {
	goos, goarch string
	sums         map[string]string // archive name → hex SHA-256
	maxArchive   int64
	opts         DownloadOptions
	getenv       func(string) string
}

// DownloadBinary returns the path of this client version's sidecar binary in
// the user cache, downloading and checking the release archive for this
// platform first if it is not there yet.
func DownloadBinary(ctx context.Context, opts DownloadOptions) (string, error) {
	return release{goos: runtime.GOOS, goarch: runtime.GOARCH, sums: releaseSums, maxArchive: maxArchiveBytes, opts: opts, getenv: os.Getenv}.fetch(ctx)
}

// PinnedSHA256 is the SHA-256 (hex) this client pins for a release archive
// of ReleaseVersion; false when it pins none (no download for it).
func PinnedSHA256(archive string) (string, bool) {
	sum, ok := releaseSums[archive]
	return sum, ok
}

// releaseTarget names the release archive's target for a Go platform. Linux
// takes the static musl build, which runs on any distribution (glibc or not)
// with nothing to detect.
func releaseTarget(goos, goarch string) (target, ext string, ok bool) {
	switch goos + "/" + goarch {
	case "linux/amd64":
		return "x86_64-unknown-linux-musl", ".tar.gz", true
	case "linux/arm64":
		return "aarch64-unknown-linux-musl", ".tar.gz", true
	case "darwin/amd64":
		return "x86_64-apple-darwin", ".tar.gz", true
	case "darwin/arm64":
		return "aarch64-apple-darwin", ".tar.gz", true
	case "windows/amd64":
		return "x86_64-pc-windows-gnu", ".zip", true
	}
	return "", "", false
}

// ArchiveName is the release archive of a version for a Go platform, e.g.
// mcp-sidecar-v0.1.0-x86_64-unknown-linux-musl.tar.gz ("" when none is built).
func ArchiveName(version, goos, goarch string) string {
	target, ext, ok := releaseTarget(goos, goarch)
	if !ok {
		return ""
	}
	return "mcp-sidecar-v" + version + "-" + target + ext
}

func (r release) fail(cause error, format string, args ...any) (string, error) {
	return "", r.err(cause, format, args...)
}

func (r release) err(cause error, format string, args ...any) *Error {
	e := clientError(CodeBinaryNotFound, cause, format, args...)
	e.Data["platform"] = r.goos + "/" + r.goarch
	e.Data["version"] = releaseVersion
	return e
}

func (r release) fetch(ctx context.Context) (string, error) {
	exe := "mcp-sidecar"
	if r.goos == "windows" {
		exe += ".exe"
	}
	archive := ArchiveName(releaseVersion, r.goos, r.goarch)
	if archive == "" {
		return r.fail(nil, "no mcp-sidecar release is built for %s/%s: build it from source (cargo build --release) and set $%s or Options.BinaryPath", r.goos, r.goarch, EnvBinary)
	}
	cache := r.opts.CacheDir
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return r.fail(err, "no user cache directory for the mcp-sidecar download (%v): set DownloadOptions.CacheDir or $%s", err, EnvBinary)
		}
		cache = filepath.Join(base, "mcp-sidecar")
	}
	dir := filepath.Join(cache, releaseVersion)
	binary := filepath.Join(dir, exe)
	if isExecutable(binary) {
		return binary, nil
	}
	base := r.opts.BaseURL
	if base == "" {
		base = r.getenv(EnvDownloadURL)
	}
	if base == "" {
		base = DefaultDownloadURL
	}
	url := base + "/v" + releaseVersion + "/" + archive
	if off := r.getenv(EnvOffline); r.opts.Offline || (off != "" && off != "0") {
		return r.fail(nil, "%s is not in the cache and downloads are off (offline): fetch %s, check it against the sum in the client's release_sums.go, and put its %s there, or set $%s", binary, url, exe, EnvBinary)
	}
	want, ok := r.sums[archive]
	if !ok {
		return r.fail(nil, "this client (release %s) pins no checksum for %s, so it downloads nothing: build the sidecar from source (cargo build --release) and set $%s", releaseVersion, archive, EnvBinary)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.fail(err, "cannot create the cache directory %s: %v", dir, err)
	}
	tmp, got, err := r.download(ctx, url, dir)
	if err != nil {
		return r.fail(err, "downloading %s: %v", url, err)
	}
	defer os.Remove(tmp)
	if got != want {
		e := r.err(nil, "refused %s: its SHA-256 is %s, this client pins %s (nothing was extracted)", url, got, want)
		e.Data["url"], e.Data["sha256"], e.Data["pinnedSha256"] = url, got, want
		return "", e
	}
	if err := extract(tmp, strings.HasSuffix(archive, ".zip"), exe, binary); err != nil {
		return r.fail(err, "extracting %s from %s: %v", exe, url, err)
	}
	return binary, nil
}

// download streams url into a temporary file of dir, hashing it, and returns
// the file and its hex SHA-256.
func (r release) download(ctx context.Context, url, dir string) (string, string, error) {
	client := r.opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: downloadDeadline}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("HTTP %s", resp.Status)
	}
	f, err := os.CreateTemp(dir, ".download-*")
	if err != nil {
		return "", "", err
	}
	hash := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, hash), io.LimitReader(resp.Body, r.maxArchive+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > r.maxArchive {
		err = fmt.Errorf("the archive is over %d bytes", r.maxArchive)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", err
	}
	return f.Name(), hex.EncodeToString(hash.Sum(nil)), nil
}

// extract copies the entry named exe of a checked archive into a temporary
// file beside dest, made executable, then renames it to dest: a reader of
// dest sees no file or the whole binary.
func extract(archive string, zipped bool, exe, dest string) error {
	out, err := os.CreateTemp(filepath.Dir(dest), ".mcp-sidecar-*")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	err = copyEntry(archive, zipped, exe, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(out.Name(), dest)
	}
	return err
}

// copyEntry writes the top-level entry named exe of a .zip or .tar.gz
// archive to w, at most maxBinaryBytes.
func copyEntry(archive string, zipped bool, exe string, w io.Writer) error {
	bounded := func(r io.Reader) error {
		n, err := io.Copy(w, io.LimitReader(r, maxBinaryBytes+1))
		if err == nil && n > maxBinaryBytes {
			err = fmt.Errorf("%s is over %d bytes", exe, maxBinaryBytes)
		}
		return err
	}
	if zipped {
		z, err := zip.OpenReader(archive)
		if err != nil {
			return err
		}
		defer z.Close()
		for _, f := range z.File {
			if f.Name == exe && f.Mode().IsRegular() {
				r, err := f.Open()
				if err != nil {
					return err
				}
				defer r.Close()
				return bounded(r)
			}
		}
		return fmt.Errorf("the archive holds no %s", exe)
	}
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	t := tar.NewReader(gz)
	for {
		h, err := t.Next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the archive holds no %s", exe)
		}
		if err != nil {
			return err
		}
		if (h.Name == exe || h.Name == "./"+exe) && h.Typeflag == tar.TypeReg {
			return bounded(t)
		}
	}
}
