// client.go owns the sidecar process and the connection to it: spawning,
// initialize, request ids and the pending-response table, cancellation, and
// the process waiter. writer.go and reader.go own the two pipe goroutines.

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Client is a running sidecar and the connection to it. Create it with
// Start, end it with Close. All methods are safe for concurrent use.
type Client struct {
	opts Options
	path string
	cmd  *exec.Cmd
	info InitializeResult

	stdin  *os.File // write end of the sidecar's stdin; owned by writeLoop
	stdout *os.File // read end of the sidecar's stdout; owned by readLoop

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan response // guarded by mu
	closing bool                    // guarded by mu: Close has begun
	broken  *Error                  // guarded by mu: set once the reader stopped

	writeQ     chan outgoing
	writerDone chan struct{} // closed when writeLoop has returned
	readerDone chan struct{} // closed when readLoop has returned
	exited     chan struct{} // closed when the process has been waited for
	waitErr    error         // set before exited is closed

	notifs *notifQueue

	closeOnce sync.Once
	closeErr  error
}

// response is what the reader hands a waiting call: a result or an error.
type response struct {
	result json.RawMessage
	err    *Error
}

// outgoing is one line for the writer; eof asks it to close stdin instead.
type outgoing struct {
	line   []byte
	method string
	id     int64 // 0 for notifications
	eof    bool
}

// Start finds and spawns the sidecar, then performs initialize with the
// session options. ctx bounds only the start (spawn and initialize): the
// sidecar runs until Close. On failure nothing is left running.
func Start(ctx context.Context, opts Options) (*Client, error) {
	opts = opts.withDefaults()
	path, err := FindBinary(opts.BinaryPath)
	if err != nil {
		return nil, err
	}
	c, err := spawn(path, opts)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"protocolVersion": 1}
	if opts.ToolFormat != "" {
		params["toolFormat"] = opts.ToolFormat
	}
	if opts.NameTemplate != "" {
		params["nameTemplate"] = opts.NameTemplate
	}
	if opts.MaxNameLength != 0 {
		params["maxNameLength"] = opts.MaxNameLength
	}
	if opts.ClientInfo != nil {
		params["clientInfo"] = opts.ClientInfo
	}
	if opts.Strict {
		params["strict"] = true
	}
	if opts.RequireTrust {
		params["requireTrust"] = true
	}
	if err := c.call(ctx, "initialize", params, &c.info); err != nil {
		c.abort()
		return nil, err
	}
	return c, nil
}

// spawn starts the process with its own pipes and the three goroutines.
func spawn(path string, opts Options) (*Client, error) {
	inR, inW, err := os.Pipe() // close-on-exec: no other child inherits inW
	if err != nil {
		return nil, clientError(CodeSpawnFailed, err, "creating the stdin pipe: %v", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, clientError(CodeSpawnFailed, err, "creating the stdout pipe: %v", err)
	}
	cmd := exec.Command(path, opts.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, opts.Stderr
	if opts.Stderr == io.Discard {
		cmd.Stderr = nil // the null device itself: no pipe, no copying goroutine
	}
	cmd.Env, cmd.Dir = opts.Env, opts.Dir
	cmd.WaitDelay = time.Second // bounds Wait when something else holds stderr open
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, clientError(CodeSpawnFailed, err, "starting %s: %v", path, err)
	}
	c := &Client{
		opts:       opts,
		path:       path,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		pending:    make(map[int64]chan response),
		writeQ:     make(chan outgoing, 64),
		writerDone: make(chan struct{}),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
		notifs:     newNotifQueue(opts.NotificationBuffer),
	}
	go c.waitLoop()
	go c.writeLoop()
	go c.readLoop()
	return c, nil
}

// abort kills a sidecar whose start failed (it has no servers yet) and waits.
func (c *Client) abort() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	_ = c.cmd.Process.Kill()
	<-c.exited
}

// Info returns the initialize result.
func (c *Client) Info() InitializeResult { return c.info }

// BinaryPath returns the path of the running sidecar binary.
func (c *Client) BinaryPath() string { return c.path }

// PID returns the sidecar's process id.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Done is closed once the sidecar process has exited (for any reason).
func (c *Client) Done() <-chan struct{} { return c.exited }

// ExitCode returns the sidecar's exit status once it has exited, else -1
// (also -1 when it was killed by a signal).
func (c *Client) ExitCode() int {
	select {
	case <-c.exited:
		return c.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}

// Notifications returns the channel of notifications from the sidecar, in
// the order they were sent. It is bounded (Options.NotificationBuffer): when
// full, the oldest queued notification is dropped and counted by
// DroppedNotifications, so an unread channel never blocks responses. The
// channel is closed once the sidecar's stdout ends (after Close, or if it
// dies).
func (c *Client) Notifications() <-chan Notification { return c.notifs.ch }

// DroppedNotifications counts notifications dropped because the channel was full.
func (c *Client) DroppedNotifications() uint64 { return c.notifs.dropped.Load() }

// request is a JSON-RPC request line.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// call sends one request and waits for its response, decoding the result
// into out (when non-nil). Cancelling ctx returns at once (CodeCancelled)
// and tells the sidecar with notifications/cancelled.
func (c *Client) call(ctx context.Context, method string, params any, out any) error {
	if ctx.Err() != nil {
		return cancelledError(ctx, method)
	}
	id := c.nextID.Add(1)
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return clientError(CodeInvalidParams, err, "encoding %s params: %v", method, err)
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	switch {
	case c.broken != nil:
		c.mu.Unlock()
		return c.broken
	case c.closing && method != "shutdown":
		c.mu.Unlock()
		return clientError(CodeClosed, nil, "%s called after Close", method)
	}
	c.pending[id] = ch
	c.mu.Unlock()

	select {
	case c.writeQ <- outgoing{line: append(line, '\n'), method: method, id: id}:
	case <-c.writerDone:
		c.forget(id)
		return c.goneError()
	case <-ctx.Done():
		c.forget(id) // never written: nothing to cancel
		return cancelledError(ctx, method)
	}

	select {
	case r := <-ch:
		return decodeResponse(method, r, out)
	case <-ctx.Done():
		if !c.forget(id) { // the response won the race: use it
			return decodeResponse(method, <-ch, out)
		}
		if method != "initialize" && method != "shutdown" { // not cancellable (§11)
			c.sendCancel(id, ctx)
		}
		return cancelledError(ctx, method)
	}
}

func decodeResponse(method string, r response, out any) error {
	if r.err != nil {
		return r.err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(r.result, out); err != nil {
		return clientError(CodeProtocolError, err, "decoding the %s result: %v", method, err)
	}
	return nil
}

// forget removes a pending id; false means the reader already took it.
func (c *Client) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

func cancelledError(ctx context.Context, method string) *Error {
	cause := ctx.Err()
	msg := fmt.Sprintf("%s cancelled by the caller's context (%v)", method, cause)
	if c := context.Cause(ctx); c != nil && c != cause {
		msg += ": " + c.Error()
	}
	return clientError(CodeCancelled, cause, "%s", msg)
}

// sendCancel queues notifications/cancelled for id without blocking the caller.
func (c *Client) sendCancel(id int64, ctx context.Context) {
	params := map[string]any{"requestId": id, "reason": ctx.Err().Error()}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
	m := outgoing{line: append(line, '\n'), method: "notifications/cancelled"}
	select {
	case c.writeQ <- m:
	default:
		go func() {
			select {
			case c.writeQ <- m:
			case <-c.writerDone:
			}
		}()
	}
}

// goneError is the error for calls once the connection is gone.
func (c *Client) goneError() *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if c.closing {
		return clientError(CodeClosed, nil, "the client is closed")
	}
	return clientError(CodeSidecarExited, nil, "the sidecar's stdin is closed")
}

// waitLoop reaps the process. If something else keeps stdout open after the
// sidecar exited (a leaked descendant), it closes the read end so the
// reader ends too.
func (c *Client) waitLoop() {
	c.waitErr = c.cmd.Wait()
	close(c.exited)
	select {
	case <-c.readerDone:
	case <-time.After(2 * time.Second):
		c.stdout.Close()
	}
}
