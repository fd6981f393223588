// tools_test.go: a Messages API agent loop through anthropic-sdk-go's own
// client and a scripted provider on loopback: the model asks for a tool,
// the sidecar calls the fixture server, the tool_result reaches the model.

package anthropicgo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
)

// runMessages is the agent loop a user writes with the adapter.
func runMessages(ctx context.Context, ts *Toolset, ac anthropic.Client, prompt string) (string, error) {
	tools, err := ts.Tools(ctx)
	if err != nil {
		return "", err
	}
	params := anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 256, Tools: tools,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}}
	for turn := 0; turn < 4; turn++ {
		msg, err := ac.Messages.New(ctx, params)
		if err != nil {
			return "", err
		}
		if msg.StopReason != anthropic.StopReasonToolUse {
			return msg.Content[0].Text, nil
		}
		results, err := ts.ToolResults(ctx, msg)
		if err != nil {
			return "", err
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	}
	return "", errors.New("no answer after 4 turns")
}

// scriptUses is a model that asks for uses on the first turn and then
// answers with the tool results it got.
func scriptUses(uses ...map[string]any) func(*testing.T, string, int, map[string]any) any {
	return func(t *testing.T, _ string, turn int, body map[string]any) any {
		if turn == 0 {
			return message(uses...)
		}
		return message(text(describe(lastToolResults(t, body))))
	}
}

func TestMessagesLoopCallsAToolAndAnswers(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, ac := newFakeProvider(t, scriptUses(toolUse("toolu_1", "mcp__fixture__echo", map[string]string{"message": "hello agent"})))
	answer, err := runMessages(ctx, ts, ac, "say hello")
	if err != nil || answer != "toolu_1: hello agent" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
	var echo map[string]any
	for _, raw := range asList(p.Requests()[0]["tools"]) {
		if tool := raw.(map[string]any); tool["name"] == "mcp__fixture__echo" {
			echo = tool
		}
	}
	schema, _ := echo["input_schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if schema["type"] != "object" || props["message"] == nil || len(asList(schema["required"])) != 1 ||
		schema["additionalProperties"] != false || !strings.HasPrefix(echo["description"].(string), "Returns the message") {
		t.Fatalf("echo sent as %v", echo)
	}
}

func TestMessagesLoopImageReachesTheModelAsAnImageBlock(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, ac := newFakeProvider(t, scriptUses(toolUse("toolu_2", "mcp__fixture__image", map[string]any{})))
	answer, err := runMessages(ctx, ts, ac, "draw")
	if err != nil || answer != "toolu_2: a 1x1 png base64/image/png/iVBORw0K" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

func TestMessagesLoopToolErrorsSetIsError(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, ac := newFakeProvider(t, scriptUses(
		toolUse("toolu_a", "mcp__fixture__fail", map[string]string{"message": "disk on fire"}),
		toolUse("toolu_b", "mcp__fixture__echo", map[string]int{"message": 7}),
		toolUse("toolu_c", "mcp__fixture__echo", map[string]string{"message": "fine"})))
	answer, err := runMessages(ctx, ts, ac, "try three")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(answer, " | ")
	if len(parts) != 3 || parts[0] != "toolu_a[error]: disk on fire" ||
		!strings.HasPrefix(parts[1], "toolu_b[error]: error INVALID_ARGUMENTS: ") || parts[2] != "toolu_c: fine" {
		t.Fatalf("answer %q", answer)
	}
}

// A cancelled run cancels the call: the context is cancelled from the
// tool's first progress update (an event, not a timer).
func TestCancelledRunCancelsTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(adaptertest.Ctx(t))
	c := adaptertest.StartSidecar(t, client.Handlers{})
	ts := New(c)
	ts.Progress = func(string, client.ProgressUpdate) { cancel() }
	_, ac := newFakeProvider(t, scriptUses(toolUse("toolu_1", "mcp__fixture__progress", map[string]int{"steps": 1000, "intervalMs": 50})))
	_, err := runMessages(ctx, ts, ac, "long job")
	if !errors.Is(err, context.Canceled) || !client.IsCode(err, client.CodeCancelled) {
		t.Fatalf("err %v", err)
	}
	res, err := c.CallTool(adaptertest.Ctx(t), "mcp__fixture__echo", map[string]string{"message": "still here"}, nil)
	if err != nil || res.Text != "still here" {
		t.Fatalf("after the cancel: %v %+v", err, res)
	}
}
