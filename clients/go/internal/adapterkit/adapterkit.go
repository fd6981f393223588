// Package adapterkit holds what the framework adapters (clients/go/adapters/*)
// share and that depends on no framework: one tool call with the failures a
// model can act on turned into text, the tool list decoded, calls run at once,
// and MCP messages read. Each adapter keeps its own exported API; this package
// is internal so that it is no part of the client's.
package adapterkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	client "github.com/mcp-sidecar/mcp-sidecar/clients/go"
)

// Caller runs tool calls the way an adapter's Toolset is set up.
type Caller struct {
	Client   *client.Client
	Format   client.ToolFormat
	Timeout  time.Duration
	Progress func(tool string, update client.ProgressUpdate)
}

// Call runs one tool call. A failure the model can act on (bad arguments,
// unknown tool, timeout, a server that is down) comes back as refusal, the
// text the model reads, with res nil; only a cancelled context or a sidecar
// that is gone is an error, because the run cannot go on.
func (c Caller) Call(ctx context.Context, name string, args any) (res *client.CallResult, refusal string, err error) {
	opts := &client.CallOptions{Format: c.Format, Timeout: c.Timeout}
	if c.Progress != nil {
		opts.Progress = func(u client.ProgressUpdate) { c.Progress(name, u) }
	}
	res, err = c.Client.CallTool(ctx, name, args, opts)
	if err == nil {
		return res, "", nil
	}
	var e *client.Error
	if Fatal(err) || !errors.As(err, &e) {
		return nil, "", err
	}
	return nil, fmt.Sprintf("error %s: %s", e.Code, e.Message), nil
}

// Fatal reports errors that end the run rather than the one call.
func Fatal(err error) bool {
	return client.IsCode(err, client.CodeCancelled) || client.IsCode(err, client.CodeClosed) ||
		client.IsCode(err, client.CodeSidecarExited) || client.IsCode(err, client.CodeKilled)
}

// Definitions decodes every tool's definition into a T; one that fails to
// decode or that ok rejects is the error "<adapter>: tool <name>: not an
// <kind> definition: <definition>".
func Definitions[T any](list *client.ToolList, adapter, kind string, ok func(*T) bool) ([]T, error) {
	defs := make([]T, len(list.Tools))
	for i, tool := range list.Tools {
		if err := json.Unmarshal(tool.Definition, &defs[i]); err != nil || !ok(&defs[i]) {
			return nil, fmt.Errorf("%s: tool %s: not an %s definition: %s", adapter, tool.Name, kind, tool.Definition)
		}
	}
	return defs, nil
}

// Each runs f(0) ... f(n-1) at once and returns the first error in index
// order, or nil once every f has returned.
func Each(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
