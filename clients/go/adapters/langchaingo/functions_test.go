// functions_test.go: native tool calling with an llms.Model: the tools'
// real schemas through llms.WithTools, the calls answered with tool messages.

package langchaingo

import (
	"context"
	"errors"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/tmc/langchaingo/llms"
)

// runNative is the loop a user writes around GenerateContent.
func runNative(ctx context.Context, ts *Toolset, model llms.Model, prompt string) (string, error) {
	tools, err := ts.FunctionTools(ctx)
	if err != nil {
		return "", err
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, prompt)}
	for turn := 0; turn < 4; turn++ {
		resp, err := model.GenerateContent(ctx, msgs, llms.WithTools(tools))
		if err != nil {
			return "", err
		}
		choice := resp.Choices[0]
		if len(choice.ToolCalls) == 0 {
			return choice.Content, nil
		}
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		for _, call := range choice.ToolCalls {
			ai.Parts = append(ai.Parts, call)
		}
		results, err := ts.ToolMessages(ctx, choice.ToolCalls)
		if err != nil {
			return "", err
		}
		msgs = append(append(msgs, ai), results...)
	}
	return "", errors.New("no answer after 4 turns")
}

func TestNativeToolCallingWithTheRealSchemas(t *testing.T) {
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	model := &scriptedModel{t: t, turns: []turn{
		func(t *testing.T, _ []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice {
			found := false
			for _, tool := range opts.Tools {
				params, _ := tool.Function.Parameters.(map[string]any)
				props, _ := params["properties"].(map[string]any)
				found = found || (tool.Type == "function" && tool.Function.Name == "mcp__fixture__echo" && props["message"] != nil)
			}
			if !found {
				t.Errorf("echo not offered with its schema: %+v", opts.Tools)
			}
			return toolCalls("mcp__fixture__echo", `{"message":"native"}`, "mcp__fixture__fail", `{}`)
		},
		func(t *testing.T, msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			return &llms.ContentChoice{Content: toolResponses(msgs)}
		},
	}}
	answer, err := runNative(adaptertest.Ctx(t), ts, model, "go")
	if err != nil || answer != "call_1=native | call_2=fixture failure" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}
