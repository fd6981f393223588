// tools.go owns the Messages API side: the definitions as ToolUnionParams,
// and a message's tool_use blocks run into tool_result blocks.

package anthropicgo

import (
	"context"
	"sync"

	"github.com/anthropics/anthropic-sdk-go"
)

// Tools lists the tools as Messages API custom tools, in the sidecar's
// order (sorted by exposed name, so the prompt prefix is stable).
func (t *Toolset) Tools(ctx context.Context) ([]anthropic.ToolUnionParam, error) {
	defs, err := t.definitions(ctx)
	if err != nil {
		return nil, err
	}
	tools := make([]anthropic.ToolUnionParam, len(defs))
	for i, def := range defs {
		properties, required, extra := schemaParts(def.InputSchema)
		tool := anthropic.ToolParam{Name: def.Name, InputSchema: anthropic.ToolInputSchemaParam{
			Properties: properties, Required: required, ExtraFields: extra}}
		if def.Description != nil {
			tool.Description = anthropic.String(*def.Description)
		}
		tools[i] = anthropic.ToolUnionParam{OfTool: &tool}
	}
	return tools, nil
}

// ToolResults runs every tool_use block of msg through the sidecar, at
// once, and returns one tool_result block per call, in order: text and
// image blocks, is_error from the server's isError (or set with a text
// saying why when the sidecar refused the call). Send them as the next user
// message. The error is only a cancelled ctx or a sidecar that is gone.
func (t *Toolset) ToolResults(ctx context.Context, msg *anthropic.Message) ([]anthropic.ContentBlockParamUnion, error) {
	var uses []anthropic.ToolUseBlock
	for _, content := range msg.Content {
		if content.Type == "tool_use" {
			uses = append(uses, content.AsToolUse())
		}
	}
	out := make([]anthropic.ContentBlockParamUnion, len(uses))
	errs := make([]error, len(uses))
	var wg sync.WaitGroup
	for i, use := range uses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = t.toolResult(ctx, use)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (t *Toolset) toolResult(ctx context.Context, use anthropic.ToolUseBlock) (anthropic.ContentBlockParamUnion, error) {
	res, err := t.call(ctx, use.Name, use.Input)
	if err != nil {
		return anthropic.ContentBlockParamUnion{}, err
	}
	parts, err := blocks(res)
	if err != nil {
		return anthropic.ContentBlockParamUnion{}, err
	}
	result := anthropic.ToolResultBlockParam{ToolUseID: use.ID}
	if res.IsError {
		result.IsError = anthropic.Bool(true)
	}
	for _, part := range parts {
		if part.Type == "image" {
			result.Content = append(result.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: part.Source.Data, MediaType: anthropic.Base64ImageSourceMediaType(part.Source.MediaType)}}}})
			continue
		}
		result.Content = append(result.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: part.Text}})
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &result}, nil
}
