// roots.go owns the roots the host lets servers use: the list the client
// answers roots/list with (Options.Roots, Handlers.Roots) and SetRoots,
// which replaces it and announces the change.

package client

import (
	"context"
	"sync"
)

// rootsState is the client's current root list.
type rootsState struct {
	declared bool // roots is declared in initialize (set before Start returns)
	mu       sync.Mutex
	list     []Root
}

func (r *rootsState) get() []Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.list
}

// SetRoots replaces the roots the client answers roots/list with and
// announces the change (notifications/roots/list_changed): the sidecar
// tells every running server, and servers then ask roots/list again.
// Errors: CodeInvalidParams when the session declared no roots (neither
// Options.Roots nor Handlers.Roots was set), CodeClosed, CodeCancelled.
func (c *Client) SetRoots(ctx context.Context, roots []Root) error {
	if !c.roots.declared {
		return clientError(CodeInvalidParams, nil, "SetRoots needs roots declared at Start (Options.Roots or Options.Handlers.Roots)")
	}
	list := append([]Root{}, roots...) // the caller may reuse its slice
	c.roots.mu.Lock()
	c.roots.list = list
	c.roots.mu.Unlock()
	return c.notify(ctx, "notifications/roots/list_changed", nil)
}
