package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSamplingRoundTrip keeps the example working: the server's
// sampling/createMessage reaches the handler and its answer comes back.
func TestSamplingRoundTrip(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out strings.Builder
	got, err := run(ctx, &out, "hello sampling")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got != "HELLO SAMPLING!" || !strings.Contains(out.String(), "sampling/createMessage from fixture") {
		t.Fatalf("got %q\n%s", got, out.String())
	}
}
