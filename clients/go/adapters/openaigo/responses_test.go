// responses_test.go: a Responses API agent loop through openai-go's own
// client and a scripted provider: an image result reaches the model as an
// input_image part of the function_call_output.

package openaigo

import (
	"context"
	"errors"
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

func runResponses(ctx context.Context, ts *Toolset, oc openai.Client, prompt string) (string, error) {
	tools, err := ts.ResponsesTools(ctx)
	if err != nil {
		return "", err
	}
	params := responses.ResponseNewParams{Model: "gpt-test", Tools: tools,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
	for turn := 0; turn < 4; turn++ {
		resp, err := oc.Responses.New(ctx, params)
		if err != nil {
			return "", err
		}
		outputs, err := ts.ResponsesToolOutputs(ctx, resp.Output)
		if err != nil {
			return "", err
		}
		if len(outputs) == 0 {
			return resp.OutputText(), nil
		}
		// The function calls are in the previous response; send their outputs.
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: outputs}
	}
	return "", errors.New("no answer after 4 turns")
}

func response(output ...any) map[string]any {
	return map[string]any{"id": "resp_test", "object": "response", "created_at": 0, "model": "gpt-test",
		"status": "completed", "output": output}
}

func TestResponsesLoopImageReachesTheModelAsInputImage(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	p, oc := newFakeProvider(t, func(t *testing.T, path string, turn int, body map[string]any) any {
		if path != "/responses" {
			t.Errorf("path %s", path)
		}
		if turn == 0 {
			return response(map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1",
				"name": "mcp__fixture__image", "arguments": "{}", "status": "completed"})
		}
		input := body["input"].([]any)
		out := input[len(input)-1].(map[string]any)
		if out["type"] != "function_call_output" || out["call_id"] != "call_1" {
			t.Errorf("last input item %v", out)
		}
		var kinds []string
		for _, raw := range out["output"].([]any) {
			part := raw.(map[string]any)
			switch part["type"] {
			case "input_text":
				kinds = append(kinds, "text:"+part["text"].(string))
			case "input_image":
				kinds = append(kinds, "image:"+part["image_url"].(string)[:22])
			}
		}
		return response(map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": strings.Join(kinds, " "), "annotations": []any{}}}})
	})
	answer, err := runResponses(ctx, ts, oc, "draw")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "text:a 1x1 png image:data:image/png;base64," {
		t.Fatalf("answer %q", answer)
	}
	tools := p.Requests()[0]["tools"].([]any)
	found := false
	for _, raw := range tools {
		tool := raw.(map[string]any)
		if tool["name"] == "mcp__fixture__echo" && tool["type"] == "function" && tool["strict"] == false {
			found = true
		}
	}
	if !found {
		t.Fatalf("echo not sent as a Responses function tool: %v", tools)
	}
}

func TestResponsesLoopToolErrorIsItsText(t *testing.T) {
	ctx := adaptertest.Ctx(t)
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	_, oc := newFakeProvider(t, func(t *testing.T, _ string, turn int, body map[string]any) any {
		if turn == 0 {
			return response(map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_9",
				"name": "mcp__fixture__fail", "arguments": `{"message":"no luck"}`, "status": "completed"})
		}
		input := body["input"].([]any)
		out := input[len(input)-1].(map[string]any)
		return response(map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": out["call_id"].(string) + ":" + out["output"].(string), "annotations": []any{}}}})
	})
	answer, err := runResponses(ctx, ts, oc, "fail")
	if err != nil || answer != "call_9:no luck" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}
