// serve.go owns the one mechanism under every handler: a request from the
// sidecar (id "sidecar-N") is looked up by method and run on its own
// goroutine; its result or error is written back, unless the sidecar
// cancelled it first (then nothing is sent).

package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// server runs the host's handlers for the sidecar's requests.
type server struct {
	methods map[string]requestHandler // immutable after Start; nil: none registered
	base    context.Context           // cancelled when the connection ends
	stop    context.CancelFunc

	mu      sync.Mutex
	running map[string]context.CancelFunc // by the request's raw id
}

func newServer(methods map[string]requestHandler) *server {
	base, stop := context.WithCancel(context.Background())
	return &server{methods: methods, base: base, stop: stop, running: map[string]context.CancelFunc{}}
}

// wireAnswer is the JSON-RPC response the host sends for a sidecar request.
type wireAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// serve starts the handler of one request from the sidecar. It never
// blocks the reader: the handler and the answer run on their own goroutine.
func (c *Client) serve(id json.RawMessage, method string, params json.RawMessage) {
	s := c.server
	h, ok := s.methods[method]
	if !ok {
		// Never sent for an undeclared capability by a conforming sidecar;
		// answered all the same so nothing waits on it.
		go c.answer(id, method, nil, &wireError{Code: -32601, Message: fmt.Sprintf("the host has no handler for %s", method)})
		return
	}
	key := string(id)
	ctx, cancel := context.WithCancel(s.base)
	s.mu.Lock()
	if old, dup := s.running[key]; dup {
		old() // a reused id replaces the old request, which is no longer answerable
	}
	s.running[key] = cancel
	s.mu.Unlock()
	go func() {
		defer cancel()
		result, herr := runHandler(ctx, h, params)
		s.mu.Lock()
		current := s.running[key] != nil && ctx.Err() == nil
		if current {
			delete(s.running, key)
		}
		s.mu.Unlock()
		if !current { // cancelled by the sidecar, or the connection ended
			c.handled(method, false)
			return
		}
		c.answer(id, method, result, herr)
	}()
}

// runHandler calls h, turning its outcome into a JSON result or a wire error.
func runHandler(ctx context.Context, h requestHandler, params json.RawMessage) (result json.RawMessage, werr *wireError) {
	defer func() {
		if p := recover(); p != nil {
			result, werr = nil, &wireError{Code: -32603, Message: fmt.Sprintf("the host's handler panicked: %v", p)}
		}
	}()
	v, err := h(ctx, params)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.RPCCode != 0 {
			return nil, &wireError{Code: e.RPCCode, Message: e.Message, Data: e.Data}
		}
		return nil, &wireError{Code: -32603, Message: err.Error()}
	}
	if v == nil {
		return nil, &wireError{Code: -32603, Message: "the host's handler returned no result"}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, &wireError{Code: -32603, Message: fmt.Sprintf("encoding the host's result: %v", err)}
	}
	return raw, nil
}

// answer writes the response to a sidecar request (unless the connection
// is gone).
func (c *Client) answer(id json.RawMessage, method string, result json.RawMessage, werr *wireError) {
	line, err := json.Marshal(wireAnswer{JSONRPC: "2.0", ID: id, Result: result, Error: werr})
	if err != nil { // only an id that is not JSON; the reader parsed it
		return
	}
	select {
	case c.writeQ <- outgoing{line: append(line, '\n'), method: method}:
		c.handled(method, true)
	case <-c.writerDone:
		c.handled(method, false)
	}
}

// handled reports a finished sidecar request to the test hook.
func (c *Client) handled(method string, answered bool) {
	if c.opts.afterHandled != nil {
		c.opts.afterHandled(method, answered)
	}
}

// cancelRequest handles the sidecar's notifications/cancelled: the handler
// of that request has its context cancelled and nothing is sent for it.
func (c *Client) cancelRequest(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	s := c.server
	s.mu.Lock()
	cancel := s.running[string(p.RequestID)]
	delete(s.running, string(p.RequestID))
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
