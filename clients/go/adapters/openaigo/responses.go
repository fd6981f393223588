// responses.go owns the Responses API side: the sidecar's openai-responses
// definitions as ToolUnionParams, and a response's function calls run into
// function_call_output items (images as input_image parts).

package openaigo

import (
	"context"
	"encoding/json"
	"fmt"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// responsesDefinition is the sidecar's openai-responses definition.
type responsesDefinition struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Strict      bool           `json:"strict"`
}

// ResponsesTools lists the tools as Responses API function tools.
func (t *Toolset) ResponsesTools(ctx context.Context) ([]responses.ToolUnionParam, error) {
	list, err := t.list(ctx, client.FormatOpenAIResponses)
	if err != nil {
		return nil, err
	}
	defs, err := adapterkit.Definitions(list, "openaigo", "openai-responses function", func(d *responsesDefinition) bool { return d.Type == "function" })
	if err != nil {
		return nil, err
	}
	tools := make([]responses.ToolUnionParam, 0, len(defs))
	for _, def := range defs {
		param := responses.ToolParamOfFunction(def.Name, def.Parameters, def.Strict)
		if def.Description != nil {
			param.OfFunction.Description = openai.String(*def.Description)
		}
		tools = append(tools, param)
	}
	return tools, nil
}

// ResponsesToolOutputs runs every function_call item of a response's output
// through the sidecar, at once, and returns one function_call_output item
// per call, in order (other items are skipped). The output is the text, or
// input_text and input_image parts when the result has images; a tool error
// is its text. The error is only a cancelled ctx or a sidecar that is gone.
func (t *Toolset) ResponsesToolOutputs(ctx context.Context, output []responses.ResponseOutputItemUnion) ([]responses.ResponseInputItemUnionParam, error) {
	var calls []responses.ResponseFunctionToolCall
	for _, item := range output {
		if item.Type == "function_call" {
			calls = append(calls, item.AsFunctionCall())
		}
	}
	out := make([]responses.ResponseInputItemUnionParam, len(calls))
	err := adapterkit.Each(len(calls), func(i int) error {
		res, err := t.call(ctx, calls[i].Name, calls[i].Arguments, client.FormatOpenAIResponses)
		if err != nil {
			return err
		}
		out[i], err = functionCallOutput(calls[i].CallID, res.Output)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// functionCallOutput builds the item from the sidecar's openai-responses
// output: a JSON string, or an array of input_text/input_image parts.
func functionCallOutput(callID string, output json.RawMessage) (responses.ResponseInputItemUnionParam, error) {
	var text string
	if json.Unmarshal(output, &text) == nil {
		item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
		item.OfFunctionCallOutput.CallID = openai.String(callID)
		return item, nil
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL string `json:"image_url"`
	}
	if err := json.Unmarshal(output, &parts); err != nil {
		return responses.ResponseInputItemUnionParam{}, fmt.Errorf("openaigo: unexpected openai-responses output %.200s: %w", output, err)
	}
	list := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(parts))
	for _, part := range parts {
		switch part.Type {
		case "input_image":
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
				OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String(part.ImageURL)},
			})
		default:
			list = append(list, responses.ResponseFunctionCallOutputItemParamOfInputText(part.Text))
		}
	}
	item := responses.ResponseInputItemParamOfFunctionCallOutput(list)
	item.OfFunctionCallOutput.CallID = openai.String(callID)
	return item, nil
}
