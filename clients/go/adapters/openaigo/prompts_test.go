// prompts_test.go: a server's prompt as the messages openai-go sends.

package openaigo

import (
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/openai/openai-go/v3"
)

func TestPromptBecomesChatMessages(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, oc := newFakeProvider(t, func(t *testing.T, _ string, _ int, body map[string]any) any {
		return completion("ok")
	})
	msgs, err := ts.Prompt(ctx, "fixture", "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	greet, err := ts.Prompt(ctx, "fixture", "greet", map[string]string{"name": "Ada"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-test", Messages: append(msgs, greet...)}); err != nil {
		t.Fatal(err)
	}
	sent := p.Requests()[0]["messages"].([]any)
	image := sent[0].(map[string]any)["content"].([]any)[0].(map[string]any)
	url, _ := image["image_url"].(map[string]any)["url"].(string)
	if len(sent) != 3 || image["type"] != "image_url" || !strings.HasPrefix(url, "data:image/png;base64,iVBORw0K") ||
		sent[1].(map[string]any)["role"] != "assistant" || sent[1].(map[string]any)["content"] != "A pixel." ||
		sent[2].(map[string]any)["content"] != "Hello, Ada!" {
		t.Fatalf("sent %v", sent)
	}
	if _, err := ts.Prompt(ctx, "fixture", "greet", nil); !client.IsCode(err, client.CodeUpstreamError) {
		t.Fatalf("a prompt the server refuses: %v", err)
	}
}
