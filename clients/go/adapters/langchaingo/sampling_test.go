// sampling_test.go: a server's sampling/createMessage answered by the
// agent's own model through Sampler, inside a tool call the model asked for.

package langchaingo

import (
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
)

func TestSamplerAnswersAServerWithTheAgentsModel(t *testing.T) {
	model := &scriptedModel{t: t, turns: []turn{
		func(*testing.T, []llms.MessageContent, llms.CallOptions) *llms.ContentChoice {
			return toolCalls("mcp__fixture__ask", arg1(`{"method":"sampling/createMessage","params":{"maxTokens":12,"systemPrompt":"be brief","messages":[{"role":"user","content":{"type":"text","text":"name a colour"}}]}}`))
		},
		func(t *testing.T, msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice {
			if len(msgs) != 2 || msgs[0].Role != llms.ChatMessageTypeSystem || msgs[1].Role != llms.ChatMessageTypeHuman ||
				msgs[1].Parts[0] != (llms.TextContent{Text: "name a colour"}) || opts.MaxTokens != 12 || len(opts.Functions) != 0 {
				t.Errorf("sampling asked with %+v %+v", msgs, opts)
			}
			return &llms.ContentChoice{Content: "teal", StopReason: "endTurn"}
		},
		func(t *testing.T, msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			return &llms.ContentChoice{Content: toolResponses(msgs)}
		},
	}}
	c := adaptertest.StartSidecar(t, client.Handlers{Sampling: Sampler(model, "scripted")})
	executor := functionsAgentWith(t, model, New(c))
	answer, err := chains.Run(adaptertest.Ctx(t), executor, "ask the server")
	if err != nil || !strings.Contains(answer, `"teal"`) || !strings.Contains(answer, `"model":"scripted"`) {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}
