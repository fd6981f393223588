// discover.go owns finding the mcp-sidecar binary.

package client

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvBinary names the environment variable holding the sidecar's path.
const EnvBinary = "MCP_SIDECAR_BIN"

// binaryName is the sidecar's file name on this platform.
func binaryName() string {
	if runtime.GOOS == "windows" {
		return "mcp-sidecar.exe"
	}
	return "mcp-sidecar"
}

// FindBinary returns the mcp-sidecar binary to run, looking in this order:
//
//  1. explicit (Options.BinaryPath), if non-empty;
//  2. $MCP_SIDECAR_BIN, if set;
//  3. mcp-sidecar next to the host executable (os.Executable's directory);
//  4. bin/mcp-sidecar inside this module's directory (put there by
//     `go generate`, see generate.go);
//  5. ../../target/release and ../../target/debug from the module directory
//     (the module inside an mcp-sidecar source checkout, after cargo build);
//  6. mcp-sidecar on PATH (exec.LookPath);
//  7. this version's release binary in the user cache, downloaded there on
//     first use and checked against its pinned SHA-256 (DownloadBinary;
//     never with $MCP_SIDECAR_OFFLINE set).
//
// An explicit path or $MCP_SIDECAR_BIN that is not an executable file is an
// error at once (no silent fallback). Otherwise the first executable
// candidate wins; when there is none, the *Error (CodeBinaryNotFound) lists
// every place searched. Steps 4-5 need the module's source directory, known
// from the build unless it used -trimpath.
func FindBinary(explicit string) (string, error) {
	return defaultSearch().find(explicit)
}

// search holds the inputs of discovery, replaceable in tests.
type search struct {
	getenv     func(string) string
	executable func() (string, error)
	moduleDir  string // "" when unknown
	lookPath   func(string) (string, error)
	download   func() (string, error) // nil: no download step
}

func defaultSearch() search {
	return search{getenv: os.Getenv, executable: os.Executable, moduleDir: moduleDir(), lookPath: exec.LookPath,
		download: func() (string, error) { return DownloadBinary(context.Background(), DownloadOptions{}) }}
}

// moduleDir is the directory of this file at build time: the module root.
func moduleDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "" // -trimpath builds record module-relative paths
	}
	return filepath.Dir(file)
}

func (s search) find(explicit string) (string, error) {
	if explicit != "" {
		return checkNamed(explicit, "Options.BinaryPath")
	}
	if env := s.getenv(EnvBinary); env != "" {
		return checkNamed(env, "$"+EnvBinary)
	}
	searched := []string{"Options.BinaryPath (empty)", "$" + EnvBinary + " (unset)"}
	var candidates []string
	if exe, err := s.executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), binaryName()))
	} else {
		searched = append(searched, "next to the executable (unknown: "+err.Error()+")")
	}
	if s.moduleDir != "" {
		candidates = append(candidates,
			filepath.Join(s.moduleDir, "bin", binaryName()),
			filepath.Join(s.moduleDir, "..", "..", "target", "release", binaryName()),
			filepath.Join(s.moduleDir, "..", "..", "target", "debug", binaryName()))
	} else {
		searched = append(searched, "the module directory (unknown: built with -trimpath)")
	}
	for _, c := range candidates {
		if isExecutable(c) {
			return filepath.Clean(c), nil
		}
		searched = append(searched, filepath.Clean(c))
	}
	if p, err := s.lookPath(binaryName()); err == nil {
		return p, nil
	}
	searched = append(searched, "PATH ("+binaryName()+")")
	var downloadErr error
	if s.download != nil {
		p, err := s.download()
		if err == nil {
			return p, nil
		}
		downloadErr = err
		searched = append(searched, "the release download ("+err.Error()+")")
	}
	e := clientError(CodeBinaryNotFound, downloadErr,
		"no %s binary found; searched: %s. Set Options.BinaryPath or $%s, run `go generate` in the module, or put it on PATH",
		binaryName(), strings.Join(searched, "; "), EnvBinary)
	e.Data["searched"] = searched
	return "", e
}

// checkNamed accepts a path the user named, or explains why not.
func checkNamed(path, source string) (string, error) {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		e := clientError(CodeBinaryNotFound, err, "%s names %s: %v", source, path, errors.Unwrap(err))
		e.Data["searched"] = []string{source + " = " + path}
		return "", e
	case info.IsDir() || !executableMode(info):
		e := clientError(CodeBinaryNotFound, nil, "%s names %s, which is not an executable file", source, path)
		e.Data["searched"] = []string{source + " = " + path}
		return "", e
	}
	return path, nil
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && executableMode(info)
}

func executableMode(info os.FileInfo) bool {
	return runtime.GOOS == "windows" || info.Mode().Perm()&0o111 != 0
}
