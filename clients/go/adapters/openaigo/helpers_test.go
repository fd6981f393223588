// helpers_test.go owns what the tests share beyond internal/adaptertest (the
// sidecar with the fixture server, the scripted provider): openai-go's own
// client pointed at the provider, and the OpenAI API's responses.

package openaigo

import (
	"encoding/json"
	"testing"

	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// newFakeProvider is adaptertest's provider with openai's own client pointed at it.
func newFakeProvider(t *testing.T, script func(t *testing.T, path string, turn int, body map[string]any) any) (*adaptertest.FakeProvider, openai.Client) {
	t.Helper()
	p, url := adaptertest.NewFakeProvider(t, script)
	return p, openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
}

// completion is a Chat Completions response with text or tool calls.
func completion(content string, calls ...map[string]any) map[string]any {
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if len(calls) > 0 {
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	return map[string]any{"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}}
}

// toolCall is one Chat Completions function call of the scripted model.
func toolCall(id, name string, args any) map[string]any {
	raw, _ := json.Marshal(args)
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)}}
}

// lastMessage is the last entry of a request's messages.
func lastMessage(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("no messages in %v", body)
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	return m
}
