// sampling_test.go: a server's sampling/createMessage answered by the
// agent's own model through Sampler, inside a tool call the model asked for.

package openaigo

import (
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

func TestSamplerAnswersAServerWithTheAgentsModel(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	var sampled map[string]any
	p, oc := newFakeProvider(t, func(t *testing.T, _ string, turn int, body map[string]any) any {
		switch turn {
		case 0: // the agent's turn: call the tool that asks the client for a sample
			return completion("", toolCall("call_1", "mcp__fixture__ask", map[string]any{
				"method": client.MethodSampling,
				"params": map[string]any{"maxTokens": 12, "systemPrompt": "be brief",
					"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "name a colour"}}}}}))
		case 1: // the server's sampling request, run on the same model
			sampled = body
			return completion("teal")
		default:
			return completion("tool said: " + lastMessage(t, body)["content"].(string))
		}
	})
	c := adaptertest.StartSidecar(t, client.Handlers{Sampling: Sampler(oc, "gpt-test")})
	answer, err := runChat(ctx, New(c), oc, "ask the server")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, `"teal"`) || !strings.Contains(answer, `"model":"gpt-test"`) {
		t.Fatalf("answer %q", answer)
	}
	msgs := sampled["messages"].([]any)
	system, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if system["role"] != "system" || system["content"] != "be brief" || user["role"] != "user" ||
		sampled["max_completion_tokens"] != float64(12) || sampled["tools"] != nil {
		t.Fatalf("sampling request sent as %v", sampled)
	}
	if len(p.Requests()) != 3 {
		t.Fatalf("%d requests", len(p.Requests()))
	}
}
