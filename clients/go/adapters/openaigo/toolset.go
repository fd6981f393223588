// Package openaigo turns mcp-sidecar's tools into openai-go's typed tool
// params (Chat Completions and Responses) and runs the model's tool calls
// through the sidecar, answering with openai-go's tool-result params.
//
// One sidecar (a *client.Client) serves every MCP server for the life of the
// agent: the tool list, each call and each server's session go through it,
// so there is no session per call and no server process outlives the host.
//
//	ts := openaigo.New(c)
//	params.Tools, err = ts.ChatTools(ctx)
//	// ... after each completion with tool calls:
//	results, err := ts.ChatToolMessages(ctx, completion.Choices[0].Message.ToolCalls)
//	params.Messages = append(append(params.Messages, completion.Choices[0].Message.ToParam()), results...)
//
// It lives in a module of its own so that the core client never depends on
// openai-go.
package openaigo

import (
	"context"
	"encoding/json"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
)

// Toolset is the sidecar's tools seen from openai-go. The zero value of each
// optional field means the sidecar's defaults.
type Toolset struct {
	// Client is the running sidecar.
	Client *client.Client
	// Servers limits the tools to these servers (nil: every ready server).
	Servers []string
	// Strict asks for OpenAI strict-mode definitions (PROTOCOL.md §9.3); a
	// tool that cannot be strict keeps strict: false. Unset, the session's
	// Options.Strict applies.
	Strict bool
	// Timeout of each call on the server (0: the server's
	// toolTimeoutSeconds). A context deadline cancels the call instead.
	Timeout time.Duration
	// Progress, when set, receives the server's progress of every call, on
	// the calling goroutine, before the call returns.
	Progress func(tool string, update client.ProgressUpdate)
}

// New returns the Toolset of every ready server of c.
func New(c *client.Client) *Toolset {
	return &Toolset{Client: c}
}

func (t *Toolset) list(ctx context.Context, format client.ToolFormat) (*client.ToolList, error) {
	opts := &client.ListToolsOptions{Format: format, Servers: t.Servers}
	if t.Strict {
		// Only when asked: false would override the session's Options.Strict.
		opts.Strict = &t.Strict
	}
	return t.Client.ListTools(ctx, opts)
}

// call runs one tool call in format. A failure the model can act on (bad
// arguments, unknown tool, timeout, a server that is down) comes back as
// the text the model sees (Output a JSON string), with IsError set; only a cancelled context or a
// sidecar that is gone is a Go error, because the run cannot go on.
func (t *Toolset) call(ctx context.Context, name, arguments string, format client.ToolFormat) (*client.CallResult, error) {
	var args any
	if arguments != "" {
		// Invalid JSON from the model fails to encode: INVALID_ARGUMENTS.
		args = json.RawMessage(arguments)
	}
	res, refusal, err := adapterkit.Caller{Client: t.Client, Format: format, Timeout: t.Timeout,
		Progress: t.Progress}.Call(ctx, name, args)
	if err != nil || refusal == "" {
		return res, err
	}
	output, _ := json.Marshal(refusal)
	return &client.CallResult{IsError: true, Text: refusal, Output: output}, nil
}
