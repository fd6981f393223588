// prompts.go owns a server's prompt as LangChainGo messages.

package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/tmc/langchaingo/llms"
)

// Prompt gets a server's prompt (prompts/get) as messages for
// GenerateContent: text parts, images and audio as BinaryContent.
func (t *Toolset) Prompt(ctx context.Context, server, name string, args map[string]string) ([]llms.MessageContent, error) {
	res, err := t.Client.GetPrompt(ctx, server, name, args, &client.GetPromptOptions{Format: client.FormatMCP})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Output)
	if err != nil {
		return nil, err
	}
	history, err := adapterkit.Messages(raw)
	if err != nil {
		return nil, fmt.Errorf("langchaingo: prompt %s of %s: %w", name, server, err)
	}
	msgs, err := messageContents(history)
	if err != nil {
		return nil, fmt.Errorf("langchaingo: prompt %s of %s: %w", name, server, err)
	}
	return msgs, nil
}
