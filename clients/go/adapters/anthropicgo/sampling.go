// sampling.go owns the answer to a server's sampling/createMessage with the
// agent's own Claude model (Messages API).

package anthropicgo

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
)

// Sampler returns a client.Handlers.Sampling handler that answers a
// server's sampling/createMessage with a message of model through ac: text
// and image messages, the system prompt, maxTokens, temperature and stop
// sequences are passed on; the answer is the text of the reply.
//
//	c, err := client.Start(ctx, client.Options{Handlers: client.Handlers{
//		Sampling: anthropicgo.Sampler(ac, anthropic.ModelClaudeSonnet4_5)}})
func Sampler(ac anthropic.Client, model anthropic.Model) func(context.Context, *client.SamplingParams) (*client.SamplingResult, error) {
	return func(ctx context.Context, req *client.SamplingParams) (*client.SamplingResult, error) {
		messages, err := messageParams(req)
		if err != nil {
			return nil, client.HandlerError(-32602, err.Error(), nil)
		}
		params := anthropic.MessageNewParams{Model: model, MaxTokens: req.MaxTokens, Messages: messages,
			StopSequences: req.StopSequences}
		if req.SystemPrompt != "" {
			params.System = []anthropic.TextBlockParam{{Text: req.SystemPrompt}}
		}
		if req.Temperature != nil {
			params.Temperature = anthropic.Float(*req.Temperature)
		}
		msg, err := ac.Messages.New(ctx, params)
		if err != nil {
			return nil, err
		}
		var text strings.Builder
		for _, content := range msg.Content {
			if content.Type == "text" {
				text.WriteString(content.Text)
			}
		}
		stop := string(msg.StopReason)
		switch msg.StopReason {
		case anthropic.StopReasonEndTurn:
			stop = "endTurn"
		case anthropic.StopReasonMaxTokens:
			stop = "maxTokens"
		case anthropic.StopReasonStopSequence:
			stop = "stopSequence"
		}
		return &client.SamplingResult{Role: "assistant", Content: client.TextContent(text.String()),
			Model: string(msg.Model), StopReason: stop}, nil
	}
}

// messageParams converts the request's messages (text and image blocks).
func messageParams(req *client.SamplingParams) ([]anthropic.MessageParam, error) {
	history, err := adapterkit.SamplingMessages(req)
	if err != nil {
		return nil, err
	}
	out := make([]anthropic.MessageParam, 0, len(history))
	for i, m := range history {
		parts, err := m.Blocks(i)
		if err != nil {
			return nil, fmt.Errorf("sampling %w", err)
		}
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(parts))
		for _, b := range parts {
			switch b.Type {
			case "text":
				blocks = append(blocks, anthropic.NewTextBlock(b.Text))
			case "image":
				blocks = append(blocks, anthropic.NewImageBlockBase64(b.MimeType, b.Data))
			default:
				return nil, fmt.Errorf("sampling message %d: a %s block cannot be sent to the Messages API", i, b.Type)
			}
		}
		switch m.Role {
		case "user":
			out = append(out, anthropic.NewUserMessage(blocks...))
		case "assistant":
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		default:
			return nil, fmt.Errorf("sampling message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}
