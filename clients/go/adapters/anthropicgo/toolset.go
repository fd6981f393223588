// Package anthropicgo turns mcp-sidecar's tools into anthropic-sdk-go's typed
// tool params and runs the model's tool_use blocks through the sidecar,
// answering with tool_result blocks (text, images, is_error). It also
// offers the tools as BetaTools for the SDK's own tool runner.
//
// One sidecar (a *client.Client) serves every MCP server for the life of the
// agent: the tool list, each call and each server's session go through it,
// so there is no session per call and no server process outlives the host.
//
//	ts := anthropicgo.New(c)
//	params.Tools, err = ts.Tools(ctx)
//	// ... after each message that stopped for tool_use:
//	results, err := ts.ToolResults(ctx, msg)
//	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
//
// It lives in a module of its own so that the core client never depends on
// anthropic-sdk-go.
package anthropicgo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
	"github.com/mcp-sidecar/mcp-sidecar/clients/go/internal/adapterkit"
)

// Toolset is the sidecar's tools seen from anthropic-sdk-go. The zero value
// of each optional field means the sidecar's defaults.
type Toolset struct {
	// Client is the running sidecar.
	Client *client.Client
	// Servers limits the tools to these servers (nil: every ready server).
	Servers []string
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

// definition is the sidecar's anthropic definition (PROTOCOL.md §9.3).
type definition struct {
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

func (t *Toolset) definitions(ctx context.Context) ([]definition, error) {
	list, err := t.Client.ListTools(ctx, &client.ListToolsOptions{Format: client.FormatAnthropic, Servers: t.Servers})
	if err != nil {
		return nil, err
	}
	return adapterkit.Definitions(list, "anthropicgo", "anthropic", func(d *definition) bool { return d.Name != "" })
}

// schemaParts splits an input schema into what the SDK's schema param has
// fields for and the rest (its ExtraFields).
func schemaParts(schema map[string]any) (properties any, required []string, extra map[string]any) {
	extra = map[string]any{}
	for key, value := range schema {
		switch key {
		case "type":
		case "properties":
			properties = value
		case "required":
			for _, name := range asList(value) {
				if s, ok := name.(string); ok {
					required = append(required, s)
				}
			}
		default:
			extra[key] = value
		}
	}
	if properties == nil {
		properties = map[string]any{}
	}
	return properties, required, extra
}

func asList(v any) []any {
	list, _ := v.([]any)
	return list
}

// call runs one tool call in the anthropic format. A failure the model can
// act on (bad arguments, unknown tool, timeout, a server that is down) comes
// back as an isError result with a text block saying why; only a cancelled
// context or a sidecar that is gone is a Go error, because the run cannot go
// on.
func (t *Toolset) call(ctx context.Context, name string, input json.RawMessage) (*client.CallResult, error) {
	var args any
	if len(input) > 0 {
		args = input
	}
	res, refusal, err := adapterkit.Caller{Client: t.Client, Format: client.FormatAnthropic, Timeout: t.Timeout,
		Progress: t.Progress}.Call(ctx, name, args)
	if err != nil || refusal == "" {
		return res, err
	}
	output, _ := json.Marshal([]map[string]string{{"type": "text", "text": refusal}})
	return &client.CallResult{IsError: true, Text: refusal, Output: output}, nil
}

// block is one content block of the sidecar's anthropic output: text, or a
// base64 image (every other block arrives rendered as text).
type block struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source struct {
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

func blocks(res *client.CallResult) ([]block, error) {
	var out []block
	if err := json.Unmarshal(res.Output, &out); err != nil {
		return nil, fmt.Errorf("anthropicgo: unexpected anthropic output %.200s: %w", res.Output, err)
	}
	return out, nil
}
