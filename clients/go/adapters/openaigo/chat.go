// chat.go owns the Chat Completions side: the sidecar's openai definitions
// as ChatCompletionToolUnionParams, and a message's tool calls run into
// tool messages.

package openaigo

import (
	"context"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// chatDefinition is the sidecar's openai definition (PROTOCOL.md §9.3).
type chatDefinition struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description *string        `json:"description"`
		Parameters  map[string]any `json:"parameters"`
		Strict      *bool          `json:"strict"`
	} `json:"function"`
}

// ChatTools lists the tools as Chat Completions function tools, in the
// sidecar's order (sorted by exposed name, so the prompt prefix is stable).
func (t *Toolset) ChatTools(ctx context.Context) ([]openai.ChatCompletionToolUnionParam, error) {
	list, err := t.list(ctx, client.FormatOpenAI)
	if err != nil {
		return nil, err
	}
	defs, err := adapterkit.Definitions(list, "openaigo", "openai function", func(d *chatDefinition) bool { return d.Type == "function" })
	if err != nil {
		return nil, err
	}
	tools := make([]openai.ChatCompletionToolUnionParam, 0, len(defs))
	for _, def := range defs {
		fn := shared.FunctionDefinitionParam{Name: def.Function.Name, Parameters: def.Function.Parameters}
		if def.Function.Description != nil {
			fn.Description = openai.String(*def.Function.Description)
		}
		if def.Function.Strict != nil {
			fn.Strict = openai.Bool(*def.Function.Strict)
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(fn))
	}
	return tools, nil
}

// ChatToolMessages runs every tool call of an assistant message through the
// sidecar, at once, and returns one tool message per call in the calls'
// order. Chat Completions tool messages carry text only: an image is
// rendered as "[image: <mime>, <n> bytes base64]" (use the Responses API for
// images), and a tool error (isError) is its text, as the model has no error
// flag there. A custom (non-function) tool call is answered with an error
// text. The error is only a cancelled ctx or a sidecar that is gone.
func (t *Toolset) ChatToolMessages(ctx context.Context, calls []openai.ChatCompletionMessageToolCallUnion) ([]openai.ChatCompletionMessageParamUnion, error) {
	out := make([]openai.ChatCompletionMessageParamUnion, len(calls))
	err := adapterkit.Each(len(calls), func(i int) error {
		call := calls[i]
		if call.Type != "function" {
			out[i] = openai.ToolMessage(fmt.Sprintf("error: %s is a %s tool call; only function tools are served here", call.ID, call.Type), call.ID)
			return nil
		}
		fn := call.AsFunction().Function
		res, err := t.call(ctx, fn.Name, fn.Arguments, client.FormatOpenAI)
		if err != nil {
			return err
		}
		out[i] = openai.ToolMessage(res.OutputString(), call.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
