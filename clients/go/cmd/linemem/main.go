// Command linemem measures what one over-long line from the sidecar costs the
// Go client: the hostile sidecar (proto/scenarios/hostile) answers
// servers/list with one line of -bytes bytes (100 MB by default, over the
// default 64 MiB MaxLineBytes), and the command reports the bytes allocated
// while the call failed, the heap still in use after a GC with the client
// open, and the process's RSS before, at its peak and after (Go hands freed
// memory back to the system lazily, so the heap in use is the figure that
// says what stays pinned).
//
//	go run ./cmd/linemem [-bytes 104857600]
//
// The same measurement for the other clients: clients/python/bench/linemem.py
// and clients/node/bench/linemem.mjs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

func main() {
	size := flag.Int("bytes", 100<<20, "bytes of the line")
	flag.Parse()
	sidecar, err := filepath.Abs("../../proto/scenarios/hostile/hostile_sidecar.py")
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	c, err := client.Start(ctx, client.Options{BinaryPath: sidecar, Args: []string{"huge-line", "--bytes", fmt.Sprint(*size)}})
	if err != nil {
		fail(err)
	}
	defer c.Close(ctx)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rssBefore := status("VmRSS")
	_, err = c.ListServers(ctx)
	code := "none"
	if e, ok := err.(*client.Error); ok {
		code = e.Code
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	fmt.Printf("go: a %d-byte line: %s; allocated %.1f MB; heap in use after GC %.1f MB (before %.1f MB); RSS %s before, peak %s, %s after\n",
		*size, code, mb(allocated), mb(after.HeapInuse), mb(before.HeapInuse), rssBefore, status("VmHWM"), status("VmRSS"))
}

func mb(n uint64) float64 { return float64(n) / 1e6 }

// status reads one field of /proc/self/status ("12345 kB" → "12.6 MB").
func status(field string) string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return fmt.Sprintf("%.1f MB", kb*1024/1e6)
		}
	}
	return "?"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "linemem:", err)
	os.Exit(1)
}
