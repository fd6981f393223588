// sampling_test.go: a server's sampling/createMessage answered by the
// agent's own model through Sampler, inside a tool call the model asked for.

package anthropicgo

import (
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

func TestSamplerAnswersAServerWithTheAgentsModel(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	var sampled map[string]any
	_, ac := newFakeProvider(t, func(t *testing.T, _ string, turn int, body map[string]any) any {
		switch turn {
		case 0:
			return message(toolUse("toolu_1", "mcp__fixture__ask", map[string]any{
				"method": client.MethodSampling,
				"params": map[string]any{"maxTokens": 12, "systemPrompt": "be brief",
					"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "name a colour"}}}}}))
		case 1:
			sampled = body
			return message(text("teal"))
		default:
			return message(text(describe(lastToolResults(t, body))))
		}
	})
	c := adaptertest.StartSidecar(t, client.Handlers{Sampling: Sampler(ac, "claude-test")})
	answer, err := runMessages(ctx, New(c), ac, "ask the server")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(answer, `"teal"`) || !strings.Contains(answer, `"stopReason":"endTurn"`) {
		t.Fatalf("answer %q", answer)
	}
	system := asList(sampled["system"])
	if len(system) != 1 || system[0].(map[string]any)["text"] != "be brief" || sampled["max_tokens"] != float64(12) ||
		len(asList(sampled["messages"])) != 1 || sampled["tools"] != nil {
		t.Fatalf("sampling request sent as %v", sampled)
	}
}
