// prompts_test.go: a server's prompt as the messages anthropic-sdk-go sends.

package anthropicgo

import (
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

func TestPromptBecomesMessages(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, ac := newFakeProvider(t, func(*testing.T, string, int, map[string]any) any { return message(text("ok")) })
	msgs, err := ts.Prompt(ctx, "fixture", "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	greet, err := ts.Prompt(ctx, "fixture", "greet", map[string]string{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 16, Messages: append(msgs, greet...)}); err != nil {
		t.Fatal(err)
	}
	sent := asList(p.Requests()[0]["messages"])
	first := asList(sent[0].(map[string]any)["content"])[0].(map[string]any)
	src, _ := first["source"].(map[string]any)
	second := asList(sent[1].(map[string]any)["content"])[0].(map[string]any)
	third := asList(sent[2].(map[string]any)["content"])[0].(map[string]any)
	if len(sent) != 3 || first["type"] != "image" || src["media_type"] != "image/png" ||
		sent[1].(map[string]any)["role"] != "assistant" || second["text"] != "A pixel." || third["text"] != "Hello, Ada!" {
		t.Fatalf("sent %v", sent)
	}
}
