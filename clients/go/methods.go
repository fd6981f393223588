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
// Errors: CodeConfigInvalid, CodeServerExists, CodeTrustRequired (under
// Options.RequireTrust without the matching opts.Trust; approve
// Error.TrustDigest), CodeCancelled (the start still completes in the
// sidecar; see PROTOCOL.md §11).
func (c *Client) AddServer(ctx context.Context, name string, config ServerConfig, opts *AddServerOptions) (*ServerStatus, error) {
	params := struct {
		Name   string       `json:"name"`
		Config ServerConfig `json:"config"`
		Wait   *bool        `json:"wait,omitempty"`
		Trust  string       `json:"trust,omitempty"`
	}{Name: name, Config: config}
	if opts != nil {
		if opts.NoWait {
			wait := false
			params.Wait = &wait
		}
		params.Trust = opts.Trust
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
		if opts.Strict != nil {
			params["strict"] = *opts.Strict
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
// CodeResultTooLarge (resultPolicy "error"; under "truncate" the result
// has Truncated set instead, see ReadResult), CodeUpstreamError, CodeProtocolError, CodeCancelled.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts *CallOptions) (*CallResult, error) {
	params := struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
		TimeoutMs int64           `json:"timeoutMs,omitempty"`
		Format    ToolFormat      `json:"format,omitempty"`
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
	if opts != nil {
		if opts.Timeout > 0 {
			params.TimeoutMs = int64((opts.Timeout + time.Millisecond - 1) / time.Millisecond)
		}
		params.Format = opts.Format
	}
	var res CallResult
	if err := c.call(ctx, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// LoadServers loads a config document in any supported dialect
// (servers/load): every valid server is added as by AddServer (waiting
// unless req.NoWait). Problems are not errors but Diagnostics; servers held
// back by Options.RequireTrust are in TrustRequired (load again with
// req.Trust[name] = digest). Errors: CodeInvalidParams (not exactly one of
// Path, JSON, Text), CodeCancelled.
func (c *Client) LoadServers(ctx context.Context, req LoadRequest) (*LoadResult, error) {
	params := struct {
		Path    string            `json:"path,omitempty"`
		JSON    json.RawMessage   `json:"json,omitempty"`
		Text    *string           `json:"text,omitempty"`
		Dialect string            `json:"dialect,omitempty"`
		Inputs  map[string]string `json:"inputs,omitempty"`
		Trust   map[string]string `json:"trust,omitempty"`
		Wait    *bool             `json:"wait,omitempty"`
	}{Path: req.Path, Dialect: req.Dialect, Inputs: req.Inputs, Trust: req.Trust}
	sources := 0
	if req.Path != "" {
		sources++
	}
	if req.JSON != nil {
		raw, err := json.Marshal(req.JSON)
		if err != nil {
			return nil, clientError(CodeInvalidParams, err, "encoding the json config: %v", err)
		}
		if !bytes.Equal(raw, []byte("null")) {
			params.JSON = raw
			sources++
		}
	}
	if req.Text != "" {
		params.Text = &req.Text
		sources++
	}
	if sources != 1 {
		return nil, clientError(CodeInvalidParams, nil, "servers/load needs exactly one of Path, JSON and Text (got %d)", sources)
	}
	if req.NoWait {
		wait := false
		params.Wait = &wait
	}
	var res LoadResult
	if err := c.call(ctx, "servers/load", params, &res); err != nil {
		return nil, err
	}
	if res.Added == nil {
		res.Added = []ServerStatus{}
	}
	if res.Diagnostics == nil {
		res.Diagnostics = []Diagnostic{}
	}
	if res.TrustRequired == nil {
		res.TrustRequired = []TrustRequest{}
	}
	return &res, nil
}

// TestServer starts config as AddServer would (servers/test), reports what
// it found and stops it again; nothing is registered. A failed start is a
// report with State "error" and Error set, not an error. Errors:
// CodeConfigInvalid, CodeTrustRequired (under Options.RequireTrust without
// the matching opts.Trust), CodeCancelled.
func (c *Client) TestServer(ctx context.Context, config ServerConfig, opts *TestServerOptions) (*TestReport, error) {
	params := struct {
		Config ServerConfig `json:"config"`
		Name   string       `json:"name,omitempty"`
		Trust  string       `json:"trust,omitempty"`
	}{Config: config}
	if opts != nil {
		params.Name, params.Trust = opts.Name, opts.Trust
	}
	var rep TestReport
	if err := c.call(ctx, "servers/test", params, &rep); err != nil {
		return nil, err
	}
	if rep.Tools == nil {
		rep.Tools = []string{}
	}
	return &rep, nil
}

// ReadResult reads the full text of a truncated CallTool result
// (results/read) from CallResult.Truncated.Handle: at most 256 KiB per
// call, from opts.Offset (bytes of the UTF-8 text). Read until EOF. Each
// read renews the text's 10 minute lifetime. Errors: CodeResultExpired
// (unknown, expired or evicted handle), CodeInvalidParams, CodeCancelled.
func (c *Client) ReadResult(ctx context.Context, handle string, opts *ReadResultOptions) (*ResultChunk, error) {
	params := struct {
		Handle string `json:"handle"`
		Offset int64  `json:"offset,omitempty"`
		Length int64  `json:"length,omitempty"`
	}{Handle: handle}
	if opts != nil {
		params.Offset, params.Length = opts.Offset, opts.Length
	}
	var chunk ResultChunk
	if err := c.call(ctx, "results/read", params, &chunk); err != nil {
		return nil, err
	}
	return &chunk, nil
}
