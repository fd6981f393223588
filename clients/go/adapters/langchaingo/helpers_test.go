// helpers_test.go owns what the tests share beyond internal/adaptertest (the
// sidecar with the fixture server): a scripted llms.Model that checks what
// the agent sends it.

package langchaingo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// turn is one scripted model turn: it sees the messages and options the
// agent sent and returns the choice.
type turn func(t *testing.T, msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice

// scriptedModel is an llms.Model that plays its turns in order.
type scriptedModel struct {
	t     *testing.T
	mu    sync.Mutex
	turns []turn
	next  int
}

func (m *scriptedModel) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	if m.next >= len(m.turns) {
		m.t.Errorf("the model was asked a %d. time", m.next+1)
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "out of script"}}}, nil
	}
	choice := m.turns[m.next](m.t, msgs, opts)
	m.next++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, nil
}

func (m *scriptedModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// toolCalls is a choice that calls name(arguments) for each pair.
func toolCalls(pairs ...string) *llms.ContentChoice {
	choice := &llms.ContentChoice{}
	for i := 0; i+1 < len(pairs); i += 2 {
		choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: fmt.Sprintf("call_%d", i/2+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: pairs[i], Arguments: pairs[i+1]}})
	}
	return choice
}

// toolResponses renders every tool message of msgs as "id=content" joined
// with " | " (the functions agent sends each call as its own AI message and
// tool message).
func toolResponses(msgs []llms.MessageContent) string {
	var out []string
	for _, msg := range msgs {
		for _, part := range msg.Parts {
			if r, ok := part.(llms.ToolCallResponse); ok && msg.Role == llms.ChatMessageTypeTool {
				out = append(out, r.ToolCallID+"="+r.Content)
			}
		}
	}
	return strings.Join(out, " | ")
}

// arg1 is the arguments of an OpenAIFunctionsAgent tool: one string.
func arg1(input string) string {
	raw, _ := json.Marshal(map[string]string{"__arg1": input})
	return string(raw)
}
