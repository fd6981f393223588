// agents_test.go: LangChainGo agent runs over the sidecar's tools.Tools: the
// OpenAIFunctionsAgent with a scripted model that checks what it is sent,
// and the one-shot (MRKL) agent with LangChainGo's own fake LLM.

package langchaingo

import (
	"context"
	"errors"
	"strings"
	"testing"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adaptertest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/schema"
)

func functionsAgent(t *testing.T, ts *Toolset, turns ...turn) *agents.Executor {
	return functionsAgentWith(t, &scriptedModel{t: t, turns: turns}, ts)
}

// functionsAgentWith is the one line of a user's agent over the sidecar.
func functionsAgentWith(t *testing.T, model llms.Model, ts *Toolset) *agents.Executor {
	t.Helper()
	tools, err := ts.Tools(adaptertest.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return agents.NewExecutor(agents.NewOpenAIFunctionsAgent(model, tools), agents.WithMaxIterations(4))
}

func TestFunctionsAgentCallsAToolAndAnswers(t *testing.T) {
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	executor := functionsAgent(t, ts,
		func(t *testing.T, _ []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice {
			var echo *llms.FunctionDefinition
			for i, fn := range opts.Functions {
				if fn.Name == "mcp__fixture__echo" {
					echo = &opts.Functions[i]
				}
			}
			if echo == nil || !strings.HasPrefix(echo.Description, "Returns the message") ||
				!strings.Contains(echo.Description, `"message":{"description":"Text to return unchanged.","type":"string"}`) {
				t.Errorf("echo offered as %+v", echo)
			}
			return toolCalls("mcp__fixture__echo", arg1(`{"message":"hello agent"}`))
		},
		func(t *testing.T, msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			return &llms.ContentChoice{Content: "tool said: " + toolResponses(msgs)}
		})
	answer, err := chains.Run(adaptertest.Ctx(t), executor, "say hello")
	if err != nil || answer != "tool said: call_1=hello agent" {
		t.Fatalf("answer %q, err %v", answer, err)
	}
}

func TestFunctionsAgentImageErrorAndBadInputTakeTheSamePath(t *testing.T) {
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	executor := functionsAgent(t, ts,
		func(*testing.T, []llms.MessageContent, llms.CallOptions) *llms.ContentChoice {
			return toolCalls("mcp__fixture__image", arg1("{}"),
				"mcp__fixture__fail", arg1("disk on fire"), // the only property, a string: taken as is
				"mcp__fixture__large", arg1("lots"), // its only property is an integer: refused
				"mcp__fixture__echo", arg1(`{"message":7}`)) // the server's schema refuses it
		},
		func(t *testing.T, msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			return &llms.ContentChoice{Content: toolResponses(msgs)}
		})
	answer, err := chains.Run(adaptertest.Ctx(t), executor, "try four")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(answer, " | ")
	if len(parts) != 4 || !strings.HasPrefix(parts[0], "call_1=a 1x1 png\n[image: image/png, ") ||
		parts[1] != "call_2=disk on fire" ||
		!strings.HasPrefix(parts[2], "call_3=error INVALID_ARGUMENTS: the input of mcp__fixture__large must be a JSON object") ||
		!strings.HasPrefix(parts[3], "call_4=error INVALID_ARGUMENTS: ") {
		t.Fatalf("answer %q", answer)
	}
}

// LangChainGo's own fake LLM drives the text (ReAct) agent: the action
// input is plain text, the observation is the tool's result.
func TestOneShotAgentWithTheFakeLLM(t *testing.T) {
	ts := New(adaptertest.StartSidecar(t, client.Handlers{}))
	tools, err := ts.Tools(adaptertest.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	llm := fake.NewFakeLLM([]string{
		"Thought: I should echo it.\nAction: mcp__fixture__echo\nAction Input: plain words",
		"Thought: I know it now.\nFinal Answer: the server echoed",
	})
	executor := agents.NewExecutor(agents.NewOneShotAgent(llm, tools), agents.WithMaxIterations(3),
		agents.WithReturnIntermediateSteps())
	out, err := executor.Call(adaptertest.Ctx(t), map[string]any{"input": "echo plain words"})
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := out["intermediateSteps"].([]schema.AgentStep)
	if out["output"] != "the server echoed" || len(steps) != 1 || steps[0].Observation != "plain words" {
		t.Fatalf("output %v, steps %+v", out["output"], steps)
	}
}

// A cancelled run cancels the call: the context is cancelled from the
// tool's first progress update (an event, not a timer).
func TestCancelledRunCancelsTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(adaptertest.Ctx(t))
	c := adaptertest.StartSidecar(t, client.Handlers{})
	ts := New(c)
	ts.Progress = func(string, client.ProgressUpdate) { cancel() }
	executor := functionsAgent(t, ts, func(*testing.T, []llms.MessageContent, llms.CallOptions) *llms.ContentChoice {
		return toolCalls("mcp__fixture__progress", arg1(`{"steps":1000,"intervalMs":50}`))
	})
	_, err := chains.Run(ctx, executor, "long job")
	if !errors.Is(err, context.Canceled) || !client.IsCode(err, client.CodeCancelled) {
		t.Fatalf("err %v", err)
	}
	res, err := c.CallTool(adaptertest.Ctx(t), "mcp__fixture__echo", map[string]string{"message": "still here"}, nil)
	if err != nil || res.Text != "still here" {
		t.Fatalf("after the cancel: %v %+v", err, res)
	}
}
