// betatools.go owns the tools as anthropic.BetaTool, the interface of the
// SDK's tool runner (client.Beta.Messages.NewToolRunner), which runs the
// agent loop itself.

package anthropicgo

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/anthropics/anthropic-sdk-go"
)

// BetaTools lists the tools as BetaTools for the SDK's tool runner:
//
//	tools, err := anthropicgo.New(c).BetaTools(ctx)
//	runner := ac.Beta.Messages.NewToolRunner(tools, anthropic.BetaToolRunnerParams{...})
//	msg, err := runner.RunToCompletion(ctx)
//
// A tool error (isError) is returned as an Execute error, which the runner
// sends as an is_error result "Error: <text>"; a cancelled ctx ends the run.
func (t *Toolset) BetaTools(ctx context.Context) ([]anthropic.BetaTool, error) {
	defs, err := t.definitions(ctx)
	if err != nil {
		return nil, err
	}
	tools := make([]anthropic.BetaTool, len(defs))
	for i, def := range defs {
		tools[i] = &betaTool{set: t, def: def}
	}
	return tools, nil
}

type betaTool struct {
	set *Toolset
	def definition
}

func (b *betaTool) Name() string { return b.def.Name }

func (b *betaTool) Description() string {
	if b.def.Description == nil {
		return ""
	}
	return *b.def.Description
}

func (b *betaTool) InputSchema() anthropic.BetaToolInputSchemaParam {
	properties, required, extra := schemaParts(b.def.InputSchema)
	return anthropic.BetaToolInputSchemaParam{Properties: properties, Required: required, ExtraFields: extra}
}

func (b *betaTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	res, err := b.set.call(ctx, b.def.Name, input)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, errors.New(res.Text)
	}
	parts, err := blocks(res)
	if err != nil {
		return nil, err
	}
	out := make([]anthropic.BetaToolResultBlockParamContentUnion, 0, len(parts))
	for _, part := range parts {
		if part.Type == "image" {
			out = append(out, anthropic.BetaToolResultBlockParamContentUnion{OfImage: &anthropic.BetaImageBlockParam{
				Source: anthropic.BetaImageBlockParamSourceUnion{OfBase64: &anthropic.BetaBase64ImageSourceParam{
					Data: part.Source.Data, MediaType: anthropic.BetaBase64ImageSourceMediaType(part.Source.MediaType)}}}})
			continue
		}
		out = append(out, anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: part.Text}})
	}
	return out, nil
}
