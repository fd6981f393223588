// close.go owns ending the session: shutdown, waiting for the exit, and
// killing a sidecar that does not exit in time.

package client

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"time"
)

// Close ends the session: it sends shutdown (the sidecar stops every server
// and its process tree, then exits 0), closes the sidecar's stdin right
// behind it (EOF is the same stop, so a sidecar that never answers shutdown
// still exits by itself), and waits for the exit. If the sidecar has not exited within Options.CloseTimeout
// (or before ctx ends), it is killed and Close returns an *Error with
// CodeKilled. An exit status other than 0 gives CodeSidecarExited.
//
// Calls still in flight fail (CodeShuttingDown from the sidecar, or
// CodeClosed); calls made after Close get CodeClosed. The Notifications
// channel is closed once every notification was read from the sidecar.
// Close is idempotent: later calls return the first result.
func (c *Client) Close(ctx context.Context) error {
	c.closeOnce.Do(func() { c.closeErr = c.close(ctx) })
	return c.closeErr
}

func (c *Client) close(ctx context.Context) error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()

	sctx, cancel := context.WithTimeout(ctx, c.opts.CloseTimeout)
	defer cancel()
	answer := c.sendShutdown(sctx)
	c.closeStdin()

	killed := false
	select {
	case <-c.exited:
	case <-sctx.Done():
		killed = !errors.Is(c.cmd.Process.Kill(), os.ErrProcessDone)
		<-c.exited // SIGKILL cannot be ignored; Wait is bounded by WaitDelay
	}
	var shutdownErr error
	select {
	case r := <-answer: // nil channel (shutdown not sent): never ready
		if r.err != nil {
			shutdownErr = r.err
		}
	default:
		shutdownErr = errors.New("shutdown was not answered")
	}
	select { // every notification written before the exit is delivered
	case <-c.readerDone:
	case <-time.After(2 * time.Second):
		c.stdout.Close()
		<-c.readerDone
	}
	c.drainLog() // and every log line, before Close returns

	state := c.cmd.ProcessState.String()
	switch {
	case killed:
		e := clientError(CodeKilled, shutdownErr,
			"the sidecar did not exit within %v of shutdown and was killed", c.opts.CloseTimeout)
		e.Data["exit"] = state
		return e
	case c.cmd.ProcessState.ExitCode() != 0:
		e := clientError(CodeSidecarExited, c.waitErr, "the sidecar exited with %s", state)
		e.Data["exit"] = state
		return e
	}
	return nil
}

// sendShutdown queues shutdown without waiting for its answer; it returns the
// channel the answer comes on, or nil when it was not sent (the connection
// is over, or ctx ended first). A pending entry left behind is failed with
// the rest when the reader ends.
func (c *Client) sendShutdown(ctx context.Context) chan response {
	id := c.nextID.Add(1)
	line, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: "shutdown"})
	if err != nil {
		return nil
	}
	ch := make(chan response, 1)
	c.mu.Lock()
	if c.broken != nil {
		c.mu.Unlock()
		return nil
	}
	c.pending[id] = ch
	c.mu.Unlock()
	select {
	case c.writeQ <- outgoing{line: append(line, '\n'), method: "shutdown", id: id}:
		return ch
	case <-c.writerDone:
	case <-ctx.Done():
	}
	c.forget(id)
	return nil
}
