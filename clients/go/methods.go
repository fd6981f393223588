// methods.go owns the typed calls: one method per host protocol request
// (shutdown is Close, in close.go).

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"time"
)

// Ping checks that the sidecar answers.
func (c *Client) Ping(ctx context.Context) error {
	return c.call(ctx, "ping", nil, nil)
}

// AddServer registers and starts an MCP server (servers/add). By default it
// waits until the server is ready or its start failed: a failed start is
// not an error but a status with State "error" and LastError set.
// Errors: CodeConfigInvalid, CodeServerExists, CodeCancelled (the start
// still completes in the sidecar; see PROTOCOL.md §11).
func (c *Client) AddServer(ctx context.Context, name string, config ServerConfig, opts *AddServerOptions) (*ServerStatus, error) {
	params := struct {
		Name   string       `json:"name"`
		Config ServerConfig `json:"config"`
		Wait   *bool        `json:"wait,omitempty"`
	}{Name: name, Config: config}
	if opts != nil && opts.NoWait {
		wait := false
		params.Wait = &wait
	}
	var st ServerStatus
	if err := c.call(ctx, "servers/add", params, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// RemoveServer stops a server (its whole process tree) and forgets it.
// Errors: CodeServerNotFound.
func (c *Client) RemoveServer(ctx context.Context, name string) error {
	return c.call(ctx, "servers/remove", map[string]string{"name": name}, nil)
}

// RestartServer stops a server, whatever its state, and starts it again,
// returning its status after the new handshake. Errors: CodeServerNotFound.
func (c *Client) RestartServer(ctx context.Context, name string) (*ServerStatus, error) {
	var st ServerStatus
	if err := c.call(ctx, "servers/restart", map[string]string{"name": name}, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// ListServers returns every registered server's status, sorted by name.
func (c *Client) ListServers(ctx context.Context) ([]ServerStatus, error) {
	var res struct {
		Servers []ServerStatus `json:"servers"`
	}
	if err := c.call(ctx, "servers/list", nil, &res); err != nil {
		return nil, err
	}
	if res.Servers == nil {
		res.Servers = []ServerStatus{}
	}
	return res.Servers, nil
}

// ListTools returns the tools of every ready server (or of opts.Servers),
// sorted by exposed name, with definitions in opts.Format (default: the
// session ToolFormat) and their fingerprint. Errors: CodeServerNotFound.
func (c *Client) ListTools(ctx context.Context, opts *ListToolsOptions) (*ToolList, error) {
	params := map[string]any{}
	if opts != nil {
		if opts.Format != "" {
			params["format"] = opts.Format
		}
		if opts.Servers != nil {
			params["servers"] = opts.Servers
		}
	}
	var list ToolList
	if err := c.call(ctx, "tools/list", params, &list); err != nil {
		return nil, err
	}
	if list.Tools == nil {
		list.Tools = []Tool{}
	}
	return &list, nil
}

// CallTool calls a tool by its exposed name. args is anything that encodes
// to a JSON object (a map, a struct, a json.RawMessage); nil means {}. A
// tool that reports failure is a result with IsError true, not an error.
// Errors: CodeToolNotFound, CodeInvalidArguments (Data["violations"]),
// CodeToolTimeout, CodeServerUnavailable (Data["stderrTail"]),
// CodeResultTooLarge, CodeUpstreamError, CodeProtocolError, CodeCancelled.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts *CallOptions) (*CallResult, error) {
	params := struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		TimeoutMs int64           `json:"timeoutMs,omitempty"`
	}{Name: name}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, clientError(CodeInvalidArguments, err, "encoding the arguments of %s: %v", name, err)
		}
		if !bytes.Equal(raw, []byte("null")) {
			params.Arguments = raw
		}
	}
	if opts != nil && opts.Timeout > 0 {
		params.TimeoutMs = int64((opts.Timeout + time.Millisecond - 1) / time.Millisecond)
	}
	var res CallResult
	if err := c.call(ctx, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
