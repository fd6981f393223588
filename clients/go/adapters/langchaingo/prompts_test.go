// prompts_test.go: a server's prompt as LangChainGo messages.

package langchaingo

import (
	"bytes"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/tmc/langchaingo/llms"
)

func TestPromptBecomesMessages(t *testing.T) {
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	msgs, err := ts.Prompt(adaptertest.Ctx(t), "fixture", "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != llms.ChatMessageTypeHuman || msgs[1].Role != llms.ChatMessageTypeAI {
		t.Fatalf("messages %+v", msgs)
	}
	image, ok := msgs[0].Parts[0].(llms.BinaryContent)
	if !ok || image.MIMEType != "image/png" || !bytes.HasPrefix(image.Data, []byte("\x89PNG")) ||
		msgs[1].Parts[0] != (llms.TextContent{Text: "A pixel."}) {
		t.Fatalf("messages %+v", msgs)
	}
}
