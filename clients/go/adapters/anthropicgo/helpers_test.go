// helpers_test.go owns what the tests share beyond internal/adaptertest (the
// sidecar with the fixture server, the scripted provider): anthropic-sdk-go's
// own client pointed at the provider, and the Messages API's blocks.

package anthropicgo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

// newFakeProvider is adaptertest's provider with anthropic's own client pointed at it.
func newFakeProvider(t *testing.T, script func(t *testing.T, path string, turn int, body map[string]any) any) (*adaptertest.FakeProvider, anthropic.Client) {
	t.Helper()
	p, url := adaptertest.NewFakeProvider(t, script)
	return p, anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
}

// message is a Messages API response with text and/or tool_use blocks.
func message(content ...map[string]any) map[string]any {
	stop := "end_turn"
	for _, c := range content {
		if c["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	return map[string]any{"id": "msg_test", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id, name string, input any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

// lastToolResults is the tool_result blocks of the request's last message.
func lastToolResults(t *testing.T, body map[string]any) []map[string]any {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "user" {
		t.Errorf("last message is not the user's: %v", last)
	}
	var out []map[string]any
	for _, raw := range asList(last["content"]) {
		if b, _ := raw.(map[string]any); b["type"] == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// describe renders tool_result blocks as "id[error]: text|image/png ..."
// for the scripted model to answer with.
func describe(results []map[string]any) string {
	var parts []string
	for _, r := range results {
		s := r["tool_use_id"].(string)
		if r["is_error"] == true {
			s += "[error]"
		}
		s += ":"
		for _, raw := range asList(r["content"]) {
			b := raw.(map[string]any)
			switch b["type"] {
			case "text":
				s += " " + b["text"].(string)
			case "image":
				src := b["source"].(map[string]any)
				// The PNG signature, base64: the fixture's image, not a rendering.
				s += fmt.Sprintf(" %s/%s/%.8s", src["type"], src["media_type"], src["data"])
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}
