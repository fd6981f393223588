package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestAgentLoop keeps the example working: one tool call, then the answer.
func TestAgentLoop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out strings.Builder
	answer, err := run(ctx, &out, "ping?")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if answer != "The tool answered: ping?" || !strings.Contains(out.String(), "mcp__fixture__echo") {
		t.Fatalf("answer %q\n%s", answer, out.String())
	}
}
