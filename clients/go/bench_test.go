// bench_test.go owns the in-package benchmarks (go test -bench . -run XXX):
// sequential CallTool latency, calls/s with 64 in flight, and cold start.
// cmd/bench prints the same figures as a report.

package client

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"
)

func benchClient(b *testing.B) *Client {
	c := startClient(b, Options{})
	addFixture(b, c, "fx")
	return c
}

var echoArgs = map[string]any{"message": "hello"}

func BenchmarkCallToolSequential(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		if _, err := c.CallTool(ctx, "mcp__fx__echo", echoArgs, nil); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(s))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds()), "p99-µs")
}

func BenchmarkCallTool64InFlight(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	work := make(chan struct{}, b.N)
	for i := 0; i < b.N; i++ {
		work <- struct{}{}
	}
	close(work)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := c.CallTool(ctx, "mcp__fx__echo", echoArgs, nil); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

func BenchmarkColdStart(b *testing.B) {
	bin := sidecarBin(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		c, err := Start(ctx, Options{BinaryPath: bin, Stderr: &syncBuffer{}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := c.Close(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
