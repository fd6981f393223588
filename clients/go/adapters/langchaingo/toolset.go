// Package langchaingo turns mcp-sidecar's tools into LangChainGo tools:
// tools.Tool for its agents (string in, string out), and llms.Tool
// definitions with llms.ToolCallResponse results for native tool calling.
//
// One sidecar (a *client.Client) serves every MCP server for the life of the
// agent: the tool list, each call and each server's session go through it,
// so there is no session per call and no server process outlives the host.
//
//	tools, err := langchaingo.New(c).Tools(ctx)
//	executor := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(llm, tools))
//	answer, err := chains.Run(ctx, executor, "what is in /tmp?")
//
// It lives in a module of its own so that the core client never depends on
// LangChainGo.
package langchaingo

import (
	"context"
	"encoding/json"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
)

// Toolset is the sidecar's tools seen from LangChainGo. The zero value of
// each optional field means the sidecar's defaults.
type Toolset struct {
	// Client is the running sidecar.
	Client *client.Client
	// Servers limits the tools to these servers (nil: every ready server).
	Servers []string
	// Timeout of each call on the server (0: the server's
	// toolTimeoutSeconds). A context deadline cancels the call instead.
	Timeout time.Duration
	// Progress, when set, receives the server's progress of every call, on
	// the calling goroutine, before the call returns (LangChainGo's
	// callbacks have no progress event).
	Progress func(tool string, update client.ProgressUpdate)
}

// New returns the Toolset of every ready server of c.
func New(c *client.Client) *Toolset {
	return &Toolset{Client: c}
}

// definition is the sidecar's openai definition (PROTOCOL.md §9.3): the
// JSON-schema shape LangChainGo's function tools take.
type definition struct {
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

func (t *Toolset) definitions(ctx context.Context) ([]definition, error) {
	list, err := t.Client.ListTools(ctx, &client.ListToolsOptions{Format: client.FormatOpenAI, Servers: t.Servers})
	if err != nil {
		return nil, err
	}
	return adapterkit.Definitions(list, "langchaingo", "openai", func(d *definition) bool { return d.Function.Name != "" })
}

// call runs one tool call and returns the text the model reads: the
// result's text form (an image as "[image: <mime>, <n> bytes base64]"), a
// tool error's text, or why the sidecar refused the call. Only a cancelled
// context or a sidecar that is gone is a Go error: LangChainGo's executor
// ends the run on a tool's error, which is right only then.
func (t *Toolset) call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	res, refusal, err := adapterkit.Caller{Client: t.Client, Format: client.FormatOpenAI, Timeout: t.Timeout,
		Progress: t.Progress}.Call(ctx, name, args)
	if err != nil || refusal != "" {
		return refusal, err
	}
	return res.OutputString(), nil
}
