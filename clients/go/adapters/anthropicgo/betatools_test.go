// betatools_test.go: the SDK's own agent loop, the beta tool runner, over
// the adapter's BetaTools and a scripted provider on loopback.

package anthropicgo

import (
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

func TestToolRunnerRunsTheSidecarsTools(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, ac := newFakeProvider(t, func(t *testing.T, path string, turn int, body map[string]any) any {
		if path != "/v1/messages" {
			t.Errorf("path %s", path)
		}
		if turn == 0 {
			return message(text("working"),
				toolUse("toolu_1", "mcp__fixture__image", map[string]any{}),
				toolUse("toolu_2", "mcp__fixture__fail", map[string]string{"message": "no luck"}))
		}
		return message(text(describe(lastToolResults(t, body))))
	})
	tools, err := ts.BetaTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	runner := ac.Beta.Messages.NewToolRunner(tools, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: "claude-test", MaxTokens: 256,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("go"))}},
		MaxIterations: 4})
	msg, err := runner.RunToCompletion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "toolu_1: a 1x1 png base64/image/png/iVBORw0K | toolu_2[error]: Error: no luck"
	if got := msg.Content[0].Text; got != want {
		t.Fatalf("answer %q, want %q", got, want)
	}
	found := false
	for _, raw := range asList(p.Requests()[0]["tools"]) {
		tool := raw.(map[string]any)
		schema, _ := tool["input_schema"].(map[string]any)
		found = found || (tool["name"] == "mcp__fixture__echo" && schema["additionalProperties"] == false)
	}
	if !found {
		t.Fatalf("echo not sent with its schema: %v", p.Requests()[0]["tools"])
	}
}
