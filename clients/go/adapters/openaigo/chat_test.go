// chat_test.go: a Chat Completions agent loop through openai-go's own client
// and a scripted provider on loopback: the model asks for a tool, the
// sidecar calls the fixture server, the tool message reaches the model.

package openaigo

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/openai/openai-go/v3"
)

// runChat is the agent loop a user writes with the adapter.
func runChat(ctx context.Context, ts *Toolset, oc openai.Client, prompt string) (string, error) {
	tools, err := ts.ChatTools(ctx)
	if err != nil {
		return "", err
	}
	params := openai.ChatCompletionNewParams{Model: "gpt-test", Tools: tools,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)}}
	for turn := 0; turn < 4; turn++ {
		completion, err := oc.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", err
		}
		msg := completion.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		results, err := ts.ChatToolMessages(ctx, msg.ToolCalls)
		if err != nil {
			return "", err
		}
		params.Messages = append(append(params.Messages, msg.ToParam()), results...)
	}
	return "", errors.New("no answer after 4 turns")
}

// scriptOneCall is a model that calls tool with args on the first turn and
// then answers with the tool message it got.
func scriptOneCall(tool string, args any) func(*testing.T, string, int, map[string]any) any {
	return func(t *testing.T, _ string, turn int, body map[string]any) any {
		if turn == 0 {
			return completion("", toolCall("call_1", tool, args))
		}
		last := lastMessage(t, body)
		if last["role"] != "tool" || last["tool_call_id"] != "call_1" {
			t.Errorf("turn %d: last message is not the tool result of call_1: %v", turn, last)
		}
		content, _ := last["content"].(string)
		return completion("tool said: " + content)
	}
}

func TestChatLoopCallsAToolAndAnswers(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, oc := newFakeProvider(t, scriptOneCall("mcp__fixture__echo", map[string]string{"message": "hello agent"}))

	answer, err := runChat(ctx, ts, oc, "say hello")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "tool said: hello agent" {
		t.Fatalf("answer %q", answer)
	}
	// What the SDK sent: the sidecar's definition as a function tool.
	tools, _ := p.Requests()[0]["tools"].([]any)
	var echo map[string]any
	for _, raw := range tools {
		tool, _ := raw.(map[string]any)
		fn, _ := tool["function"].(map[string]any)
		if tool["type"] == "function" && fn["name"] == "mcp__fixture__echo" {
			echo = fn
		}
	}
	if echo == nil {
		t.Fatalf("mcp__fixture__echo not among the tools sent: %v", tools)
	}
	params, _ := echo["parameters"].(map[string]any)
	props, _ := params["properties"].(map[string]any)
	if _, ok := props["message"]; !ok || !strings.HasPrefix(echo["description"].(string), "Returns the message") {
		t.Fatalf("echo sent as %v", echo)
	}
}

func TestChatLoopImageResultIsRenderedAsText(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, oc := newFakeProvider(t, scriptOneCall("mcp__fixture__image", map[string]any{}))
	answer, err := runChat(ctx, ts, oc, "draw")
	if err != nil {
		t.Fatal(err)
	}
	// Chat Completions tool messages are text only.
	if !strings.Contains(answer, "a 1x1 png") || !strings.Contains(answer, "[image: image/png, ") {
		t.Fatalf("answer %q", answer)
	}
}

func TestChatLoopToolErrorAndRefusedCallReachTheModel(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, oc := newFakeProvider(t, scriptOneCall("mcp__fixture__fail", map[string]string{"message": "disk on fire"}))
	answer, err := runChat(ctx, ts, oc, "fail please")
	if err != nil || answer != "tool said: disk on fire" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
	// Arguments the server's schema refuses: the model reads why, the run goes on.
	_, oc = newFakeProvider(t, scriptOneCall("mcp__fixture__echo", map[string]int{"message": 7}))
	answer, err = runChat(ctx, ts, oc, "bad args")
	if err != nil || !strings.HasPrefix(answer, "tool said: error INVALID_ARGUMENTS: ") {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

func TestChatToolCallsRunTogetherInOrder(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, oc := newFakeProvider(t, func(t *testing.T, _ string, turn int, body map[string]any) any {
		if turn == 0 {
			return completion("", toolCall("a", "mcp__fixture__echo", map[string]string{"message": "one"}),
				toolCall("b", "mcp__fixture__fail", map[string]string{"message": "two"}))
		}
		msgs := body["messages"].([]any)
		first, second := msgs[len(msgs)-2].(map[string]any), msgs[len(msgs)-1].(map[string]any)
		return completion(first["tool_call_id"].(string) + "=" + first["content"].(string) + " " +
			second["tool_call_id"].(string) + "=" + second["content"].(string))
	})
	answer, err := runChat(ctx, ts, oc, "both")
	if err != nil || answer != "a=one b=two" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

// A cancelled run cancels the call: the context is cancelled from the
// tool's first progress update (an event, not a timer).
func TestCancelledRunCancelsTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(adaptertest.Ctx(t))
	c := adaptertest.StartSidecar(t, client.Handlers{})
	ts := New(c)
	progressed := 0
	ts.Progress = func(tool string, u client.ProgressUpdate) {
		if tool == "mcp__fixture__progress" {
			progressed++
			cancel()
		}
	}
	_, oc := newFakeProvider(t, scriptOneCall("mcp__fixture__progress", map[string]int{"steps": 1000, "intervalMs": 50}))
	_, err := runChat(ctx, ts, oc, "long job")
	if !errors.Is(err, context.Canceled) || !client.IsCode(err, client.CodeCancelled) || progressed == 0 {
		t.Fatalf("err %v after %d progress updates", err, progressed)
	}
	// The sidecar and the server go on serving.
	res, err := c.CallTool(adaptertest.Ctx(t), "mcp__fixture__echo", map[string]string{"message": "still here"}, nil)
	if err != nil || res.Text != "still here" {
		t.Fatalf("after the cancel: %v %+v", err, res)
	}
}

func TestStrictToolsetSendsStrictDefinitions(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	for _, strict := range []bool{false, true} {
		ts.Strict = strict
		tools, err := ts.ChatTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tool := range tools {
			raw, err := json.Marshal(tool) // the JSON openai-go sends
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), `"name":"mcp__fixture__echo"`) {
				found = true
				if strings.Contains(string(raw), `"strict":true`) != strict {
					t.Errorf("strict %v: echo sent as %s", strict, raw)
				}
			}
		}
		if !found {
			t.Fatal("no echo tool")
		}
	}
}
