// sampling.go owns the answer to a server's sampling/createMessage with the
// agent's own OpenAI model (Chat Completions).

package openaigo

import (
	"context"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/openai/openai-go/v3"
)

// Sampler returns a client.Handlers.Sampling handler that answers a
// server's sampling/createMessage with a Chat Completion of model through
// oc: text and image messages, the system prompt, maxTokens, temperature
// and stop sequences are passed on; the answer is the first choice's text.
//
//	c, err := client.Start(ctx, client.Options{Handlers: client.Handlers{
//		Sampling: openaigo.Sampler(oc, openai.ChatModelGPT4o)}})
func Sampler(oc openai.Client, model openai.ChatModel) func(context.Context, *client.SamplingParams) (*client.SamplingResult, error) {
	return func(ctx context.Context, req *client.SamplingParams) (*client.SamplingResult, error) {
		messages, err := chatMessages(req)
		if err != nil {
			return nil, client.HandlerError(-32602, err.Error(), nil)
		}
		params := openai.ChatCompletionNewParams{Model: model, Messages: messages}
		if req.MaxTokens > 0 {
			params.MaxCompletionTokens = openai.Int(req.MaxTokens)
		}
		if req.Temperature != nil {
			params.Temperature = openai.Float(*req.Temperature)
		}
		if len(req.StopSequences) > 0 {
			params.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.StopSequences}
		}
		completion, err := oc.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, err
		}
		if len(completion.Choices) == 0 {
			return nil, fmt.Errorf("openaigo: the model %s answered no choice", completion.Model)
		}
		choice := completion.Choices[0]
		stop := choice.FinishReason
		switch stop {
		case "stop":
			stop = "endTurn"
		case "length":
			stop = "maxTokens"
		}
		return &client.SamplingResult{Role: "assistant", Content: client.TextContent(choice.Message.Content),
			Model: completion.Model, StopReason: stop}, nil
	}
}

// chatMessages converts the request's system prompt and messages.
func chatMessages(req *client.SamplingParams) ([]openai.ChatCompletionMessageParamUnion, error) {
	history, err := adapterkit.SamplingMessages(req)
	if err != nil {
		return nil, err
	}
	var out []openai.ChatCompletionMessageParamUnion
	if req.SystemPrompt != "" {
		out = append(out, openai.SystemMessage(req.SystemPrompt))
	}
	for i, m := range history {
		blocks, err := m.Blocks(i)
		if err != nil {
			return nil, fmt.Errorf("sampling %w", err)
		}
		switch m.Role {
		case "assistant":
			text := ""
			for _, b := range blocks {
				if b.Type != "text" {
					return nil, fmt.Errorf("sampling message %d: an assistant %s block cannot be sent to Chat Completions", i, b.Type)
				}
				text += b.Text
			}
			out = append(out, openai.AssistantMessage(text))
		case "user":
			parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(blocks))
			for _, b := range blocks {
				switch b.Type {
				case "text":
					parts = append(parts, openai.TextContentPart(b.Text))
				case "image":
					parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
						URL: "data:" + b.MimeType + ";base64," + b.Data}))
				default:
					return nil, fmt.Errorf("sampling message %d: a %s block cannot be sent to Chat Completions", i, b.Type)
				}
			}
			out = append(out, openai.UserMessage(parts))
		default:
			return nil, fmt.Errorf("sampling message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}
