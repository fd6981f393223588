// Command copybin copies a locally built mcp-sidecar binary into the
// module's bin/ directory (run by `go generate` from the module root).
//
//	go run ./internal/copybin [-from PATH] [-out DIR]
//
// Without -from it takes $MCP_SIDECAR_BIN, else ../../target/release/
// mcp-sidecar, else ../../target/debug/mcp-sidecar (relative to the module
// root, i.e. an mcp-sidecar source checkout after `cargo build`).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

func main() {
	from := flag.String("from", "", "binary to copy (default: $MCP_SIDECAR_BIN or ../../target/{release,debug}/mcp-sidecar)")
	out := flag.String("out", "bin", "directory to copy into")
	flag.Parse()
	name := "mcp-sidecar"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	src := *from
	if src == "" {
		src = os.Getenv("MCP_SIDECAR_BIN")
	}
	if src == "" {
		for _, profile := range []string{"release", "debug"} {
			p := filepath.Join("..", "..", "target", profile, name)
			if _, err := os.Stat(p); err == nil {
				src = p
				break
			}
		}
	}
	if src == "" {
		fmt.Fprintln(os.Stderr, "copybin: no mcp-sidecar found: run `cargo build` in the repository root, or pass -from / set MCP_SIDECAR_BIN")
		os.Exit(1)
	}
	dst := filepath.Join(*out, name)
	if err := copyFile(src, dst); err != nil {
		fmt.Fprintln(os.Stderr, "copybin:", err)
		os.Exit(1)
	}
	fmt.Printf("copied %s -> %s\n", src, dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst) // atomic: a running sidecar keeps its old inode
}
