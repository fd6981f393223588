// surface.go owns the typed calls of the MCP surface beyond tools
// (PROTOCOL.md §15): resources, prompts, completion and server log levels.

package client

import "context"

// ListOptions are the optional params of the paged lists
// (resources/list, resources/templates/list, prompts/list).
type ListOptions struct {
	// Server lists only this server; empty lists every ready one.
	Server string
	// Cursor is the NextCursor of the previous page of the same list and
	// Server.
	Cursor string
}

func (o *ListOptions) params() any {
	p := struct {
		Server string `json:"server,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}{}
	if o != nil {
		p.Server, p.Cursor = o.Server, o.Cursor
	}
	return p
}

// ListResources lists the servers' resources, one page (resources/list):
// servers in name order, each item with its Server. Servers whose listing
// failed are in Errors; the others are listed all the same. Continue with
// opts.Cursor = NextCursor while it is not empty. Errors:
// CodeServerNotFound, CodeServerUnavailable, CodeInvalidParams (a cursor
// from elsewhere).
func (c *Client) ListResources(ctx context.Context, opts *ListOptions) (*ResourceList, error) {
	var res ResourceList
	if err := c.call(ctx, "resources/list", opts.params(), &res); err != nil {
		return nil, err
	}
	if res.Resources == nil {
		res.Resources = []Resource{}
	}
	return &res, nil
}

// ListResourceTemplates lists the servers' resource templates, one page
// (resources/templates/list), as ListResources.
func (c *Client) ListResourceTemplates(ctx context.Context, opts *ListOptions) (*ResourceTemplateList, error) {
	var res ResourceTemplateList
	if err := c.call(ctx, "resources/templates/list", opts.params(), &res); err != nil {
		return nil, err
	}
	if res.ResourceTemplates == nil {
		res.ResourceTemplates = []ResourceTemplate{}
	}
	return &res, nil
}

// ReadResourceOptions are the optional params of resources/read.
type ReadResourceOptions struct {
	Format ToolFormat // of Output; default: the session ToolFormat
}

// ReadResource reads one resource of a server (resources/read): Contents
// as the server sent them, and Text and Output converted like a tool
// result. Over the server's maxResultBytes: CodeResultTooLarge, or under
// resultPolicy "truncate" Truncated is set (read the rest with ReadResult).
// Errors: CodeServerNotFound, CodeServerUnavailable, CodeNotSupported,
// CodeUpstreamError (e.g. no such resource), CodeInvalidParams.
func (c *Client) ReadResource(ctx context.Context, server, uri string, opts *ReadResourceOptions) (*ResourceReadResult, error) {
	params := struct {
		Server string     `json:"server"`
		URI    string     `json:"uri"`
		Format ToolFormat `json:"format,omitempty"`
	}{Server: server, URI: uri}
	if opts != nil {
		params.Format = opts.Format
	}
	var res ResourceReadResult
	if err := c.call(ctx, "resources/read", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SubscribeResource subscribes to changes of a server's resource
// (resources/subscribe): each change arrives as a Notification with
// ResourcesUpdated set. The subscription lasts for the session (renewed
// across the server's restarts). Errors: CodeNotSupported (the server has
// no resources.subscribe), CodeServerNotFound, CodeServerUnavailable.
func (c *Client) SubscribeResource(ctx context.Context, server, uri string) error {
	return c.call(ctx, "resources/subscribe", map[string]string{"server": server, "uri": uri}, nil)
}

// UnsubscribeResource ends a subscription (resources/unsubscribe).
func (c *Client) UnsubscribeResource(ctx context.Context, server, uri string) error {
	return c.call(ctx, "resources/unsubscribe", map[string]string{"server": server, "uri": uri}, nil)
}

// ListPrompts lists the servers' prompts, one page (prompts/list), as
// ListResources.
func (c *Client) ListPrompts(ctx context.Context, opts *ListOptions) (*PromptList, error) {
	var res PromptList
	if err := c.call(ctx, "prompts/list", opts.params(), &res); err != nil {
		return nil, err
	}
	if res.Prompts == nil {
		res.Prompts = []Prompt{}
	}
	return &res, nil
}

// GetPromptOptions are the optional params of prompts/get.
type GetPromptOptions struct {
	Format ToolFormat // of Output; default: the session ToolFormat
}

// GetPrompt renders a server's prompt with its arguments (prompts/get):
// Messages as the server sent them, Output in the format's message shape.
// Errors: CodeServerNotFound, CodeServerUnavailable, CodeNotSupported,
// CodeUpstreamError, CodeResultTooLarge.
func (c *Client) GetPrompt(ctx context.Context, server, name string, args map[string]string, opts *GetPromptOptions) (*PromptResult, error) {
	params := struct {
		Server    string            `json:"server"`
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
		Format    ToolFormat        `json:"format,omitempty"`
	}{Server: server, Name: name, Arguments: args}
	if opts != nil {
		params.Format = opts.Format
	}
	var res PromptResult
	if err := c.call(ctx, "prompts/get", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CompleteRequest is the params of completion/complete (PROTOCOL.md §15.5).
type CompleteRequest struct {
	Server   string             `json:"server"`
	Ref      CompletionRef      `json:"ref"`
	Argument CompletionArgument `json:"argument"`
	Context  *CompletionContext `json:"context,omitempty"`
}

// CompletionRef names what is completed: PromptRef or ResourceRef.
type CompletionRef struct {
	Type string `json:"type"` // "ref/prompt" or "ref/resource"
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef is the ref of a prompt's argument.
func PromptRef(name string) CompletionRef { return CompletionRef{Type: "ref/prompt", Name: name} }

// ResourceRef is the ref of a resource template's argument.
func ResourceRef(uri string) CompletionRef { return CompletionRef{Type: "ref/resource", URI: uri} }

// CompletionArgument is the argument being completed and its partial value.
type CompletionArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompletionContext holds the values of the arguments already given.
type CompletionContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// Complete asks a server to complete an argument (completion/complete): at
// most 100 values. A server without the completions capability completes
// to no values. Errors: CodeServerNotFound, CodeServerUnavailable,
// CodeUpstreamError.
func (c *Client) Complete(ctx context.Context, req CompleteRequest) (*CompleteResult, error) {
	var res CompleteResult
	if err := c.call(ctx, "completion/complete", req, &res); err != nil {
		return nil, err
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res, nil
}

// SetLogLevel sets the level (LogDebug ... LogEmergency) at or above which
// servers' log messages arrive on Logs (logging/setLevel): the session's
// level when server is empty (every server's own level is dropped), else
// that server's. Servers lists those the level was sent to now. Errors:
// CodeInvalidParams (an unknown level), CodeServerNotFound,
// CodeNotSupported (server is ready without logging).
func (c *Client) SetLogLevel(ctx context.Context, level, server string) (*SetLevelResult, error) {
	params := struct {
		Server string `json:"server,omitempty"`
		Level  string `json:"level"`
	}{Server: server, Level: level}
	var res SetLevelResult
	if err := c.call(ctx, "logging/setLevel", params, &res); err != nil {
		return nil, err
	}
	if res.Servers == nil {
		res.Servers = []string{}
	}
	return &res, nil
}
