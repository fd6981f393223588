// reader.go owns the reader goroutine, which always drains the sidecar's
// stdout: it routes responses to waiting calls by id, notifications to
// their queue, log stream or call, the sidecar's requests to the host's
// handlers (serve.go), and fails every pending call when the stream ends.

package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// wireMessage is any line from the sidecar: a response, a notification or
// a request to the host.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

// readLoop drains stdout until it ends, routing responses by id and queuing
// notifications; then it fails every pending call and closes the
// notification channel. After a line that ends the connection (breakOff)
// it still reads to the end, dispatching nothing, so the sidecar is never
// left blocked on a full pipe and can exit at the EOF it was given.
func (c *Client) readLoop() {
	defer close(c.readerDone)
	defer c.server.stop() // handlers still running are cancelled
	defer c.logs.close()
	defer c.notifs.close()
	defer c.stdout.Close()
	lr := newLineReader(c.stdout, c.opts.MaxLineBytes)
	broken := false
	var readErr error
	for {
		line, err := lr.next()
		var tooLong *lineTooLongError
		var fatal *Error
		switch {
		case errors.As(err, &tooLong):
			if !broken {
				fatal = c.lineTooLong(tooLong)
			}
		case err != nil:
			readErr = err
		case !broken:
			fatal = c.dispatch(line)
		}
		if readErr != nil {
			break
		}
		if fatal != nil {
			broken = true
			c.breakOff(fatal)
		}
	}
	c.fail(readErr)
}

// dispatch routes one line; a line that is not a JSON-RPC message gives the
// error that ends the connection (dropping it would leave the call it was
// meant to answer waiting forever).
func (c *Client) dispatch(line []byte) *Error {
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return invalidLine(line, err)
	}
	if m.Method != "" { // responses, the hot path, skip this branch
		if len(m.ID) != 0 {
			c.serve(m.ID, m.Method, m.Params)
		} else {
			c.notification(m.Method, m.Params)
		}
		return nil
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return nil // id null (a line of ours was malformed) or not ours
	}
	var r response
	switch {
	case m.Error != nil:
		r.err = fromWire(*m.Error)
	case m.Result == nil: // absent; "result": null is kept as the text null
		r.err = clientError(CodeInvalidMessage, nil,
			"the sidecar answered request %d with neither result nor error: %s", id, quoteLine(line))
	default:
		r.result = m.Result
	}
	c.deliver(id, r)
	return nil
}

// quotedLineBytes bounds how much of a bad line an error quotes.
const quotedLineBytes = 200

// quoteLine quotes the start of a line from the sidecar for an error message.
func quoteLine(line []byte) string {
	if len(line) > quotedLineBytes {
		return fmt.Sprintf("%q… (%d bytes)", line[:quotedLineBytes], len(line))
	}
	return fmt.Sprintf("%q", line)
}

// invalidLine is the error of a line that is not a JSON-RPC message.
func invalidLine(line []byte, cause error) *Error {
	err := clientError(CodeInvalidMessage, cause,
		"the sidecar wrote a line that is not a JSON-RPC message: %s; the client is closed", quoteLine(line))
	err.Data["line"] = string(line[:min(len(line), quotedLineBytes)])
	return err
}

// breakOff ends the connection on a line the client cannot trust: every
// pending call and every later one fails with err, and stdin is closed so
// that the sidecar stops (EOF is a shutdown). The reader goes on draining.
func (c *Client) breakOff(err *Error) {
	c.mu.Lock()
	if c.broken == nil {
		c.broken = err
	}
	pending := c.pending
	c.pending = make(map[int64]chan response)
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- response{err: err} // buffered: never blocks
	}
	go c.closeStdin() // the writer may be blocked on a sidecar that stopped reading
}

// notification routes one notification from the sidecar.
func (c *Client) notification(method string, params json.RawMessage) {
	switch method {
	case MethodServerLog:
		var l ServerLog
		if json.Unmarshal(params, &l) == nil {
			c.logs.push(l)
		}
	case MethodProgress:
		c.routeProgress(params)
	case MethodCancelled:
		c.cancelRequest(params)
	default:
		c.notifs.push(decodeNotification(method, params))
	}
}

func (c *Client) deliver(id int64, r response) {
	c.mu.Lock()
	ch, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		ch <- r // buffered: never blocks
	}
}

// lineTooLong fails the call whose response was over MaxLineBytes, when its
// id can be read from the line's start. A line that does not say which call
// it answers gives the error that ends the connection: some call may be
// waiting for it.
func (c *Client) lineTooLong(e *lineTooLongError) *Error {
	id, ok := idFromPrefix(e.Prefix)
	var err *Error
	if ok {
		err = clientError(CodeLineTooLarge, nil,
			"a response of %d bytes from the sidecar is over Options.MaxLineBytes (%d); it was discarded", e.Size, e.Limit)
	} else {
		err = clientError(CodeLineTooLarge, nil,
			"the sidecar wrote a line of %d bytes, over Options.MaxLineBytes (%d), that does not say which call it answers; the client is closed", e.Size, e.Limit)
	}
	err.Data["setting"], err.Data["limit"], err.Data["size"] = "MaxLineBytes", float64(e.Limit), float64(e.Size)
	if !ok {
		return err
	}
	c.deliver(id, response{err: err})
	return nil
}

// idFromPrefix reads the top-level "id" from the start of a JSON object,
// stopping at the first member it cannot skip within the prefix.
func idFromPrefix(prefix []byte) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if key == "id" {
			v, err := dec.Token()
			n, ok := v.(json.Number)
			if err != nil || !ok {
				return 0, false
			}
			id, err := n.Int64()
			if err != nil {
				return 0, false
			}
			// The number must be complete: a byte must follow it.
			return id, dec.InputOffset() < int64(len(prefix))
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, false
		}
	}
	return 0, false
}

// fail records why the connection ended and fails every pending call.
func (c *Client) fail(readErr error) {
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	var gone *Error
	if closing {
		gone = clientError(CodeClosed, readErr, "the client is closed")
	} else {
		select { // let the exit status explain the end, if it comes quickly
		case <-c.exited:
		case <-time.After(500 * time.Millisecond):
		}
		gone = c.exitedError(readErr)
	}
	c.mu.Lock()
	if c.broken == nil { // a line that broke the connection says more than its end
		c.broken = gone
	} else {
		gone = c.broken
	}
	pending := c.pending
	c.pending = make(map[int64]chan response)
	c.mu.Unlock()
	for _, ch := range pending {
		ch <- response{err: gone}
	}
}

// exitedError describes an unexpected end of the sidecar.
func (c *Client) exitedError(cause error) *Error {
	select {
	case <-c.exited:
		state := c.cmd.ProcessState.String()
		e := clientError(CodeSidecarExited, c.waitErr, "the sidecar exited (%s)", state)
		e.Data["exit"] = state
		return e
	default:
		return clientError(CodeSidecarExited, cause, "the sidecar closed its stdout (%v)", cause)
	}
}
