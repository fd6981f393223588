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
		if opts.Defer != nil {
			params["defer"] = *opts.Defer
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
		Progress  bool            `json:"progress,omitempty"`
		ResetOn   *bool           `json:"resetTimeoutOnProgress,omitempty"`
		MaxTotal  int64           `json:"maxTotalTimeoutMs,omitempty"`
		Parent    string          `json:"traceparent,omitempty"`
		State     string          `json:"tracestate,omitempty"`
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
			params.TimeoutMs = wholeMillis(opts.Timeout)
		}
		params.Format = opts.Format
		params.Progress = opts.Progress != nil
		params.ResetOn = opts.ResetTimeoutOnProgress
		if opts.MaxTotalTimeout > 0 {
			params.MaxTotal = wholeMillis(opts.MaxTotalTimeout)
		}
		params.Parent = opts.TraceParent
		params.State = opts.TraceState
	}
	var res CallResult
	var onProgress func(ProgressUpdate)
	if opts != nil {
		onProgress = opts.Progress
	}
	if err := c.roundTrip(ctx, "tools/call", params, &res, onProgress); err != nil {
		return nil, err
	}
	return &res, nil
}

// wholeMillis rounds d up to whole milliseconds.
func wholeMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// SearchTools ranks the exposed tools against a query (tools/search,
// PROTOCOL.md §9.6): best match first, a tool the query names exactly
// always first. Total counts every match before opts.Limit; Hits decodes
// the entries. Errors: CodeInvalidParams (empty or over-long query, limit
// out of 1-100), CodeServerNotFound.
func (c *Client) SearchTools(ctx context.Context, query string, opts *SearchToolsOptions) (*SearchResult, error) {
	params := struct {
		Query   string     `json:"query"`
		Limit   int        `json:"limit,omitempty"`
		Servers []string   `json:"servers,omitempty"`
		Format  ToolFormat `json:"format,omitempty"`
		Strict  *bool      `json:"strict,omitempty"`
	}{Query: query}
	if opts != nil {
		params.Limit, params.Servers, params.Format, params.Strict = opts.Limit, opts.Servers, opts.Format, opts.Strict
	}
	var res SearchResult
	if err := c.call(ctx, "tools/search", params, &res); err != nil {
		return nil, err
	}
	if res.Tools == nil {
		res.Tools = []json.RawMessage{}
	}
	return &res, nil
}

// AcceptTools accepts tool definitions held by pinTools (tools/accept,
// PROTOCOL.md §16), each named by the hash from ToolList.Withheld or
// ToolsChanged.Withheld. One whose definition changed again since is
// rejected with the reason. Accepted tools return to the tool set
// (notifications/tools/changed comes before the answer).
func (c *Client) AcceptTools(ctx context.Context, tools []ToolRef) (*AcceptResult, error) {
	if tools == nil {
		tools = []ToolRef{}
	}
	var res AcceptResult
	if err := c.call(ctx, "tools/accept", map[string]any{"tools": tools}, &res); err != nil {
		return nil, err
	}
	if res.Accepted == nil {
		res.Accepted = []AcceptedTool{}
	}
	if res.Rejected == nil {
		res.Rejected = []AcceptedTool{}
	}
	return &res, nil
}

// ServerStats returns the statistics of every server, or of those named
// (servers/stats), sorted by name: calls, errors and latency percentiles
// over the server's life and the last five minutes, bytes in and out,
// restarts, where the last start's time went. Errors: CodeServerNotFound.
func (c *Client) ServerStats(ctx context.Context, servers ...string) (*StatsResult, error) {
	params := map[string]any{}
	if len(servers) > 0 {
		params["servers"] = servers
	}
	var res StatsResult
	if err := c.call(ctx, "servers/stats", params, &res); err != nil {
		return nil, err
	}
	if res.Servers == nil {
		res.Servers = []ServerStats{}
	}
	return &res, nil
}

// LoginServer runs the OAuth login of a remote server (servers/login,
// PROTOCOL.md §7.2) and returns its status. The browser step goes to
// Handlers.Authorize when set, else the sidecar's loopback listener (its
// URL is the status's AuthorizationURL). Errors: CodeAuthRequired
// (declined, timed out), CodeAuthFailed, CodeInvalidParams (a server that
// does not use OAuth), CodeServerNotFound.
func (c *Client) LoginServer(ctx context.Context, name string, opts *LoginOptions) (*ServerStatus, error) {
	params := struct {
		Name string `json:"name"`
		Wait *bool  `json:"wait,omitempty"`
	}{Name: name}
	if opts != nil && opts.NoWait {
		wait := false
		params.Wait = &wait
	}
	var st ServerStatus
	if err := c.call(ctx, "servers/login", params, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// LogoutServer forgets a remote server's OAuth tokens (memory and token
// store) and stops its session (servers/logout): the status is
// needs_login. Errors as LoginServer.
func (c *Client) LogoutServer(ctx context.Context, name string) (*ServerStatus, error) {
	var st ServerStatus
	if err := c.call(ctx, "servers/logout", map[string]string{"name": name}, &st); err != nil {
		return nil, err
	}
	return &st, nil
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
