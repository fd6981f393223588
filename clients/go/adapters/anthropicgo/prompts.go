// prompts.go owns a server's prompt as Messages API messages.

package anthropicgo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// Prompt gets a server's prompt (prompts/get) as Messages API messages, to
// start or extend a conversation: text and base64 image blocks (any other
// block arrives rendered as text).
func (t *Toolset) Prompt(ctx context.Context, server, name string, args map[string]string) ([]anthropic.MessageParam, error) {
	res, err := t.Client.GetPrompt(ctx, server, name, args, &client.GetPromptOptions{Format: client.FormatAnthropic})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Output)
	if err != nil {
		return nil, err
	}
	var msgs []struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("anthropicgo: prompt %s of %s: %w", name, server, err)
	}
	out := make([]anthropic.MessageParam, 0, len(msgs))
	for i, m := range msgs {
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Content))
		for _, b := range m.Content {
			if b.Type == "image" {
				blocks = append(blocks, anthropic.NewImageBlockBase64(b.Source.MediaType, b.Source.Data))
			} else {
				blocks = append(blocks, anthropic.NewTextBlock(b.Text))
			}
		}
		switch m.Role {
		case "user":
			out = append(out, anthropic.NewUserMessage(blocks...))
		case "assistant":
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		default:
			return nil, fmt.Errorf("anthropicgo: prompt %s of %s, message %d: unknown role %q", name, server, i, m.Role)
		}
	}
	return out, nil
}
