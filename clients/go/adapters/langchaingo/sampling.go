// sampling.go owns the answer to a server's sampling/createMessage with the
// agent's own LangChainGo model.

package langchaingo

import (
	"context"
	"encoding/base64"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/tmc/langchaingo/llms"
)

// Sampler returns a client.Handlers.Sampling handler that answers a
// server's sampling/createMessage with model.GenerateContent (name is the
// model's name reported to the server): text and
// image messages, the system prompt, maxTokens, temperature and stop
// sequences are passed on; the answer is the first choice's text.
//
//	c, err := client.Start(ctx, client.Options{Handlers: client.Handlers{
//		Sampling: langchaingo.Sampler(llm, "gpt-4o")}})
func Sampler(model llms.Model, name string) func(context.Context, *client.SamplingParams) (*client.SamplingResult, error) {
	return func(ctx context.Context, req *client.SamplingParams) (*client.SamplingResult, error) {
		messages, err := samplingContents(req)
		if err != nil {
			return nil, client.HandlerError(-32602, err.Error(), nil)
		}
		var opts []llms.CallOption
		if req.MaxTokens > 0 {
			opts = append(opts, llms.WithMaxTokens(int(req.MaxTokens)))
		}
		if req.Temperature != nil {
			opts = append(opts, llms.WithTemperature(*req.Temperature))
		}
		if len(req.StopSequences) > 0 {
			opts = append(opts, llms.WithStopWords(req.StopSequences))
		}
		resp, err := model.GenerateContent(ctx, messages, opts...)
		if err != nil {
			return nil, err
		}
		if len(resp.Choices) == 0 {
			return nil, fmt.Errorf("langchaingo: the model answered no choice")
		}
		choice := resp.Choices[0]
		return &client.SamplingResult{Role: "assistant", Content: client.TextContent(choice.Content),
			Model: name, StopReason: choice.StopReason}, nil
	}
}

// samplingContents converts the request's system prompt and messages.
func samplingContents(req *client.SamplingParams) ([]llms.MessageContent, error) {
	history, err := adapterkit.SamplingMessages(req)
	if err != nil {
		return nil, err
	}
	msgs, err := messageContents(history)
	if err != nil {
		return nil, fmt.Errorf("sampling %w", err)
	}
	if req.SystemPrompt == "" {
		return msgs, nil
	}
	return append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, req.SystemPrompt)}, msgs...), nil
}

// messageContents converts MCP messages (text, image and audio blocks) to
// LangChainGo messages.
func messageContents(history []adapterkit.Message) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, 0, len(history))
	for i, m := range history {
		blocks, err := m.Blocks(i)
		if err != nil {
			return nil, err
		}
		mc := llms.MessageContent{Role: llms.ChatMessageTypeHuman}
		switch m.Role {
		case "user":
		case "assistant":
			mc.Role = llms.ChatMessageTypeAI
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				mc.Parts = append(mc.Parts, llms.TextContent{Text: b.Text})
			case "image", "audio":
				data, err := base64.StdEncoding.DecodeString(b.Data)
				if err != nil {
					return nil, fmt.Errorf("message %d: %s data is not base64: %w", i, b.Type, err)
				}
				mc.Parts = append(mc.Parts, llms.BinaryContent{MIMEType: b.MimeType, Data: data})
			default:
				return nil, fmt.Errorf("message %d: a %s block is not supported", i, b.Type)
			}
		}
		out = append(out, mc)
	}
	return out, nil
}
