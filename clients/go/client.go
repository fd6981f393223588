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

	stdin  *os.File      // write end of the sidecar's stdin; owned by writeLoop
	stdout *os.File      // read end of the sidecar's stdout; owned by readLoop
	stderr *os.File      // read end of the sidecar's stderr (nil unless Logger reads it)
	logged chan struct{} // closed when every stderr line has gone to Logger (or there is none)

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

	notifs   *dropOldestQueue[Notification]
	logs     *dropOldestQueue[ServerLog]
	progress map[int64]progressSink // guarded by mu: calls with a Progress callback
	server   *server                // runs Options.Handlers
	roots    *rootsState

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
	roots := &rootsState{list: opts.Roots, declared: opts.Roots != nil}
	methods, capabilities := opts.Handlers.table(roots)
	c, err := spawn(path, opts, newServer(methods), roots)
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
	opts.sessionParams(params)
	if capabilities != nil { // nothing registered: nothing declared
		params["capabilities"] = capabilities
	}
	if err := c.call(ctx, "initialize", params, &c.info); err != nil {
		c.abort()
		return nil, err
	}
	return c, nil
}

// spawn starts the process with its own pipes and the three goroutines.
func spawn(path string, opts Options, srv *server, roots *rootsState) (*Client, error) {
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
	var errR, errW *os.File // the sidecar's stderr, read here for Logger
	if opts.Stderr == nil {
		if errR, errW, err = os.Pipe(); err != nil {
			inR.Close()
			inW.Close()
			outR.Close()
			outW.Close()
			return nil, clientError(CodeSpawnFailed, err, "creating the stderr pipe: %v", err)
		}
	}
	args := append(append([]string(nil), opts.Args...), logFlags(opts.Args, opts.Env, opts.LogLevel, errR != nil)...)
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout = inR, outW
	switch {
	case errW != nil:
		cmd.Stderr = errW
	case opts.Stderr == io.Discard:
		cmd.Stderr = nil // the null device itself: no pipe, no copying goroutine
	default:
		cmd.Stderr = opts.Stderr
	}
	cmd.Env, cmd.Dir = opts.Env, opts.Dir
	cmd.WaitDelay = time.Second // bounds Wait when something else holds stderr open
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		inW.Close()
		outR.Close()
		if errR != nil {
			errR.Close()
		}
		return nil, clientError(CodeSpawnFailed, err, "starting %s: %v", path, err)
	}
	c := &Client{
		opts:       opts,
		path:       path,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		logged:     make(chan struct{}),
		pending:    make(map[int64]chan response),
		writeQ:     make(chan outgoing, 64),
		writerDone: make(chan struct{}),
		readerDone: make(chan struct{}),
		exited:     make(chan struct{}),
		notifs:     newDropOldestQueue[Notification](opts.NotificationBuffer),
		logs:       newDropOldestQueue[ServerLog](opts.LogBuffer),
		progress:   make(map[int64]progressSink),
		server:     srv,
		roots:      roots,
	}
	if errR != nil {
		go readSidecarLog(errR, opts.Logger, c.logged)
	} else {
		close(c.logged)
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

// Logs returns the stream of the servers' log messages
// (notifications/server/log, PROTOCOL.md §15.6), in the order they were
// sent. There are none until the session asks: Options.ServerLogs or
// SetLogLevel. It is bounded (Options.LogBuffer): when full, the oldest
// queued message is dropped and counted by DroppedLogs, so a host that
// never reads it keeps bounded memory and its responses keep flowing. The
// channel is closed once the sidecar's stdout ends.
func (c *Client) Logs() <-chan ServerLog { return c.logs.ch }

// DroppedLogs counts log messages dropped because the Logs channel was full.
func (c *Client) DroppedLogs() uint64 { return c.logs.dropped.Load() }

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
	return c.roundTrip(ctx, method, params, out, nil)
}

// roundTrip is call, plus: with onProgress set, the sidecar's progress of
// this request is handed to onProgress on the caller's goroutine (every
// update read before the response, the latest one at least).
func (c *Client) roundTrip(ctx context.Context, method string, params any, out any, onProgress func(ProgressUpdate)) error {
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
	var sink progressSink
	if onProgress != nil {
		sink = newProgressSink()
		c.progress[id] = sink
	}
	c.mu.Unlock()
	if sink != nil {
		defer c.dropProgress(id)
	}

	select {
	case c.writeQ <- outgoing{line: append(line, '\n'), method: method, id: id}:
	case <-c.writerDone:
		c.forget(id)
		return c.goneError()
	case <-ctx.Done():
		c.forget(id) // never written: nothing to cancel
		return cancelledError(ctx, method)
	}

	for sink != nil { // only calls with a progress callback loop here
		select {
		case u := <-sink:
			onProgress(u)
			continue
		case r := <-ch:
			sink.flush(onProgress) // the reader put it before the response
			return decodeResponse(method, r, out)
		case <-ctx.Done():
		}
		break
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

// dropProgress forgets a call's progress sink: later updates are dropped.
func (c *Client) dropProgress(id int64) {
	c.mu.Lock()
	delete(c.progress, id)
	c.mu.Unlock()
}

// notify queues a notification to the sidecar (in order with requests).
func (c *Client) notify(ctx context.Context, method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	line, err := json.Marshal(msg)
	if err != nil {
		return clientError(CodeInvalidParams, err, "encoding %s params: %v", method, err)
	}
	c.mu.Lock()
	gone := c.broken != nil || c.closing
	c.mu.Unlock()
	if gone {
		return c.goneError()
	}
	select {
	case c.writeQ <- outgoing{line: append(line, '\n'), method: method}:
		return nil
	case <-c.writerDone:
		return c.goneError()
	case <-ctx.Done():
		return cancelledError(ctx, method)
	}
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
	c.drainLog()
}

// drainLog waits until the sidecar's stderr has been read to its end (every
// line handed to Logger), at most 2 s after the exit: a leaked descendant
// holding it open makes it close the read end instead.
func (c *Client) drainLog() {
	select {
	case <-c.logged:
	case <-time.After(2 * time.Second):
		c.stderr.Close() // non-nil: logged is closed at once without a reader
		<-c.logged
	}
}
