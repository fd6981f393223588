// Command mcp-sidecar-download fetches this client version's sidecar binary
// into the user cache ahead of time (an image build, a machine about to go
// offline) and prints its path:
//
//	go run github.com/mcp-sidecar/mcp-sidecar/clients/go/cmd/mcp-sidecar-download
//
// It does what the first Start does when no binary is found: download the
// release archive for this platform, check its pinned SHA-256, extract.
package main

import (
	"context"
	"fmt"
	"os"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

func main() {
	path, err := client.DownloadBinary(context.Background(), client.DownloadOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-sidecar-download:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
