// handlers.go owns the host's answers to the sidecar's requests
// (PROTOCOL.md §17): the Handlers the host registers before Start, the
// capabilities they declare in initialize, and the typed requests and
// results of the four methods. serve.go runs them.

package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// Methods of the sidecar's requests to the host (PROTOCOL.md §17).
const (
	MethodSampling    = "sampling/createMessage"
	MethodElicitation = "elicitation/create"
	MethodRootsList   = "roots/list"
	MethodAuthorize   = "auth/authorize"
)

// Handlers answer the requests the sidecar sends the host on behalf of its
// servers (and auth/authorize, its own). Set them in Options.Handlers: each
// one set declares its capability in initialize, and nothing set declares
// nothing (servers are then told the client has no capabilities).
//
// Every handler runs on its own goroutine, so many run at once and none
// blocks the client's reader. Its ctx is cancelled when the sidecar stops
// waiting (its notifications/cancelled: a server withdrew the request, its
// session ended, or answerTimeoutMs passed; nothing is sent then) and when
// the connection ends.
//
// A handler's error is the answer: an *Error (see HandlerError) is sent as
// its RPCCode, Message and Data (the sidecar hands it to the server as is,
// e.g. -1 when the user rejected a sampling request); any other error, a
// nil result or a panic is answered -32603 with its message.
type Handlers struct {
	// Sampling answers sampling/createMessage: run the host's model.
	Sampling func(ctx context.Context, req *SamplingParams) (*SamplingResult, error)
	// SamplingContext also declares sampling.context (a request whose
	// includeContext is not "none"); SamplingTools declares sampling.tools
	// (requests with tools/toolChoice). Without them the sidecar refuses
	// such requests itself (-32602).
	SamplingContext, SamplingTools bool

	// Elicitation answers elicitation/create: ask the user, with a form
	// (req.Mode "form" or "") or by opening req.URL (req.Mode "url").
	Elicitation func(ctx context.Context, req *ElicitationRequest) (*ElicitationResult, error)
	// ElicitationURL also declares the url mode (form is always declared).
	ElicitationURL bool

	// Roots answers roots/list; req.Roots is the list the client holds
	// (Options.Roots, then each SetRoots). When nil but Options.Roots is
	// set, the client answers that list itself. Either declares roots with
	// listChanged, which SetRoots announces.
	Roots func(ctx context.Context, req *RootsRequest) ([]Root, error)

	// Authorize answers auth/authorize (PROTOCOL.md §7.2): open req.URL in
	// a browser (only http/https, never through a shell) and return
	// AuthorizeRedirected(redirectURL), AuthorizeOpened() or
	// AuthorizeDeclined(reason). An error counts as declined.
	Authorize func(ctx context.Context, req *AuthorizeParams) (*AuthorizeResult, error)
}

// SamplingResult is the host's answer to sampling/createMessage (MCP
// CreateMessageResult). Content is one MCP content block (or an array of
// them), e.g. {"type":"text","text":"..."}; see TextContent.
type SamplingResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// TextContent is an MCP text content block, for SamplingResult.Content.
func TextContent(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	return b
}

// ElicitationRequest is the params of elicitation/create (MCP
// ElicitRequest) plus the asking server's name.
type ElicitationRequest struct {
	Server  string `json:"server"`
	Mode    string `json:"mode,omitempty"` // "form" (also when empty) or "url"
	Message string `json:"message"`
	// RequestedSchema is the form's flat JSON Schema (form mode).
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL and ElicitationID are the url mode's.
	URL           string `json:"url,omitempty"`
	ElicitationID string `json:"elicitationId,omitempty"`
}

// ElicitationResult is the host's answer to elicitation/create: Action is
// "accept" (with Content, the form's values, in form mode), "decline" or
// "cancel".
type ElicitationResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// RootsRequest is the params of roots/list: the asking server, and (not
// sent, filled by the client) the roots it holds now.
type RootsRequest struct {
	Server string `json:"server"`
	Roots  []Root `json:"-"`
}

// AuthorizeRedirected answers auth/authorize with the URL the browser was
// redirected to (the sidecar checks its state and iss before using its code).
func AuthorizeRedirected(redirectURL string) *AuthorizeResult {
	return &AuthorizeResult{Action: "redirected", RedirectURL: redirectURL}
}

// AuthorizeOpened answers auth/authorize saying the host only opened the
// URL: the sidecar's loopback listener takes the redirect.
func AuthorizeOpened() *AuthorizeResult { return &AuthorizeResult{Action: "opened"} }

// AuthorizeDeclined answers auth/authorize saying the person declined.
func AuthorizeDeclined(reason string) *AuthorizeResult {
	return &AuthorizeResult{Action: "declined", Reason: reason}
}

// HandlerError is the error a handler returns to answer with a JSON-RPC
// error of its choosing: code (e.g. -1: the user rejected the request),
// message and optional data.
func HandlerError(code int, message string, data map[string]any) *Error {
	return &Error{RPCCode: code, Message: message, Data: data}
}

// requestHandler is the one shape every handler takes underneath: raw
// params in, a result to encode (or an error) out.
type requestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// typed adapts a typed handler: it decodes the params (-32602 when they do
// not decode) and hands back the typed result.
func typed[P, R any](f func(context.Context, *P) (*R, error)) requestHandler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, HandlerError(-32602, fmt.Sprintf("the params do not decode: %v", err), nil)
			}
		}
		r, err := f(ctx, &p)
		if err != nil || r == nil {
			return nil, err
		}
		return r, nil
	}
}

// table builds the method → handler map and the initialize capabilities
// (nil when nothing is registered: exactly the session without handlers).
func (h Handlers) table(roots *rootsState) (map[string]requestHandler, map[string]any) {
	methods := map[string]requestHandler{}
	caps := map[string]any{}
	if h.Sampling != nil {
		methods[MethodSampling] = typed(h.Sampling)
		s := map[string]any{}
		if h.SamplingContext {
			s["context"] = map[string]any{}
		}
		if h.SamplingTools {
			s["tools"] = map[string]any{}
		}
		caps["sampling"] = s
	}
	if h.Elicitation != nil {
		methods[MethodElicitation] = typed(h.Elicitation)
		e := map[string]any{"form": map[string]any{}}
		if h.ElicitationURL {
			e["url"] = map[string]any{}
		}
		caps["elicitation"] = e
	}
	if h.Roots != nil || roots.declared {
		methods[MethodRootsList] = typed(func(ctx context.Context, req *RootsRequest) (*rootsResult, error) {
			req.Roots = roots.get()
			list := req.Roots
			if h.Roots != nil {
				var err error
				if list, err = h.Roots(ctx, req); err != nil {
					return nil, err
				}
			}
			if list == nil {
				list = []Root{}
			}
			return &rootsResult{Roots: list}, nil
		})
		roots.declared = true
		caps["roots"] = map[string]any{"listChanged": true}
	}
	if h.Authorize != nil {
		methods[MethodAuthorize] = typed(h.Authorize)
		caps["auth"] = map[string]any{}
	}
	if len(methods) == 0 {
		return nil, nil
	}
	return methods, caps
}

// rootsResult is the roots/list answer.
type rootsResult struct {
	Roots []Root `json:"roots"`
}
