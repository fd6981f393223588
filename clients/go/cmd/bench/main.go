// Command bench measures the Go client through the sidecar to the fixture's
// echo tool: sequential CallTool latency (p50/p99), throughput with 64 calls
// in flight, and cold start (Start: spawn + initialize; and Start plus a
// ready fixture server). The baseline is the same sequential calls written
// as raw lines to a sidecar's stdin without the client (rawlines.go), so the
// client's own cost is the ratio of the two.
//
//	MCP_SIDECAR_BIN=../../target/release/mcp-sidecar \
//	MCP_FIXTURE_BIN=../../target/release/mcp-fixture go run ./cmd/bench
//
// Flags: -calls (sequential), -parallel-calls, -inflight, -starts.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

func main() {
	calls := flag.Int("calls", 5000, "sequential calls")
	parCalls := flag.Int("parallel-calls", 20000, "calls in the in-flight run")
	inflight := flag.Int("inflight", 64, "calls in flight")
	starts := flag.Int("starts", 20, "cold starts")
	flag.Parse()
	if err := run(*calls, *parCalls, *inflight, *starts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func fixture() string {
	if p := os.Getenv("MCP_FIXTURE_BIN"); p != "" {
		return p
	}
	p, _ := filepath.Abs(filepath.Join("..", "..", "target", "debug", "mcp-fixture"))
	return p
}

func run(calls, parCalls, inflight, starts int) error {
	ctx := context.Background()
	bin, err := client.FindBinary("")
	if err != nil {
		return err
	}
	fmt.Printf("sidecar %s\nfixture %s\n", bin, fixture())

	c, err := client.Start(ctx, client.Options{BinaryPath: bin, Stderr: io.Discard})
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.AddServer(ctx, "fx", client.ServerConfig{Command: fixture()}, nil); err != nil {
		return err
	}
	args := map[string]any{"message": "hello"}
	for i := 0; i < 200; i++ { // warm-up
		if _, err := c.CallTool(ctx, "mcp__fx__echo", args, nil); err != nil {
			return err
		}
	}

	lat := make([]time.Duration, calls)
	t0 := time.Now()
	for i := range lat {
		s := time.Now()
		if _, err := c.CallTool(ctx, "mcp__fx__echo", args, nil); err != nil {
			return err
		}
		lat[i] = time.Since(s)
	}
	seq := time.Since(t0)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("sequential: %d calls, p50 %v, p99 %v, %.0f calls/s\n",
		calls, pct(lat, 50), pct(lat, 99), float64(calls)/seq.Seconds())
	raw, err := rawLines(bin, fixture(), calls)
	if err != nil {
		return err
	}
	sort.Slice(raw, func(i, j int) bool { return raw[i] < raw[j] })
	fmt.Printf("baseline, raw lines without the client: p50 %v, p99 %v; client/raw p50 %.2fx\n",
		pct(raw, 50), pct(raw, 99), float64(pct(lat, 50))/float64(pct(raw, 50)))

	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, inflight)
	t0 = time.Now()
	for g := 0; g < inflight; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(parCalls) {
				if _, err := c.CallTool(ctx, "mcp__fx__echo", args, nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	par := time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	fmt.Printf("%d in flight: %d calls in %v, %.0f calls/s\n", inflight, parCalls, par.Round(time.Millisecond), float64(parCalls)/par.Seconds())

	var startLat, readyLat []time.Duration
	for i := 0; i < starts; i++ {
		s := time.Now()
		cc, err := client.Start(ctx, client.Options{BinaryPath: bin, Stderr: io.Discard})
		if err != nil {
			return err
		}
		startLat = append(startLat, time.Since(s))
		if _, err := cc.AddServer(ctx, "fx", client.ServerConfig{Command: fixture()}, nil); err != nil {
			return err
		}
		readyLat = append(readyLat, time.Since(s))
		if err := cc.Close(ctx); err != nil {
			return err
		}
	}
	sort.Slice(startLat, func(i, j int) bool { return startLat[i] < startLat[j] })
	sort.Slice(readyLat, func(i, j int) bool { return readyLat[i] < readyLat[j] })
	fmt.Printf("cold start (%d): Start p50 %v; Start + fixture ready p50 %v\n", starts, pct(startLat, 50), pct(readyLat, 50))
	return nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	if i < 0 {
		i = 0
	}
	return sorted[i].Round(time.Microsecond)
}
