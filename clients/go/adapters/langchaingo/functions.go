// functions.go owns native tool calling: the tools as llms.Tool function
// definitions (their real schemas) and a response's tool calls run into
// tool messages.

package langchaingo

import (
	"context"
	"encoding/json"

	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/tmc/langchaingo/llms"
)

// FunctionTools lists the tools as llms.Tool for llms.WithTools, each with
// its JSON schema (not the single string argument of Tools).
func (t *Toolset) FunctionTools(ctx context.Context) ([]llms.Tool, error) {
	defs, err := t.definitions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]llms.Tool, len(defs))
	for i, def := range defs {
		out[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: def.Function.Name, Description: def.Function.Description, Parameters: def.Function.Parameters}}
	}
	return out, nil
}

// ToolMessages runs every tool call of a choice through the sidecar, at
// once, and returns one tool message (an llms.ToolCallResponse) per call,
// in order, to append to the conversation after the AI message with the
// calls. The error is only a cancelled ctx or a sidecar that is gone.
func (t *Toolset) ToolMessages(ctx context.Context, calls []llms.ToolCall) ([]llms.MessageContent, error) {
	out := make([]llms.MessageContent, len(calls))
	err := adapterkit.Each(len(calls), func(i int) error {
		call := calls[i]
		var content string
		var err error
		if call.FunctionCall == nil {
			content = "error: tool call " + call.ID + " names no function"
		} else {
			var args json.RawMessage
			if call.FunctionCall.Arguments != "" {
				args = json.RawMessage(call.FunctionCall.Arguments)
			}
			content, err = t.call(ctx, call.FunctionCall.Name, args)
		}
		name := ""
		if call.FunctionCall != nil {
			name = call.FunctionCall.Name
		}
		out[i] = llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: call.ID, Name: name, Content: content}}}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
