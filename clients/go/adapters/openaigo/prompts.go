// prompts.go owns a server's prompt as Chat Completions messages.

package openaigo

import (
	"context"
	"encoding/json"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/openai/openai-go/v3"
)

// promptMessage is one message of the sidecar's openai prompt output: a
// string, or text and image_url parts (PROTOCOL.md §15.4).
type promptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type promptPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// Prompt gets a server's prompt (prompts/get) as Chat Completions
// messages, to start or extend a conversation: a user message keeps its
// images as data-URL image parts.
func (t *Toolset) Prompt(ctx context.Context, server, name string, args map[string]string) ([]openai.ChatCompletionMessageParamUnion, error) {
	res, err := t.Client.GetPrompt(ctx, server, name, args, &client.GetPromptOptions{Format: client.FormatOpenAI})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res.Output)
	if err != nil {
		return nil, err
	}
	var msgs []promptMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, fmt.Errorf("openaigo: prompt %s of %s: %w", name, server, err)
	}
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for i, m := range msgs {
		var text string
		isText := json.Unmarshal(m.Content, &text) == nil
		switch {
		case m.Role == "assistant" && isText:
			out = append(out, openai.AssistantMessage(text))
		case m.Role == "user" && isText:
			out = append(out, openai.UserMessage(text))
		case m.Role == "user":
			var parts []promptPart
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return nil, fmt.Errorf("openaigo: prompt %s of %s, message %d: %w", name, server, i, err)
			}
			union := make([]openai.ChatCompletionContentPartUnionParam, 0, len(parts))
			for _, p := range parts {
				if p.Type == "image_url" {
					union = append(union, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: p.ImageURL.URL}))
				} else {
					union = append(union, openai.TextContentPart(p.Text))
				}
			}
			out = append(out, openai.UserMessage(union))
		default:
			return nil, fmt.Errorf("openaigo: prompt %s of %s, message %d: a %s message of this shape: %s", name, server, i, m.Role, m.Content)
		}
	}
	return out, nil
}
