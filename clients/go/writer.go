// writer.go owns the writer goroutine, the sole owner of the sidecar's
// stdin: lines are written in the order they were queued.

package client

// writeLoop owns stdin: it writes queued lines in order until asked for EOF
// or the process exits. After a write error it keeps draining the queue so
// no caller blocks; the reader reports the sidecar's end to the callers.
func (c *Client) writeLoop() {
	defer close(c.writerDone)
	defer c.stdin.Close()
	var werr error
	for {
		select {
		case m := <-c.writeQ:
			if m.eof {
				return
			}
			if werr != nil {
				continue
			}
			if _, werr = c.stdin.Write(m.line); werr == nil && c.opts.afterWrite != nil {
				c.opts.afterWrite(m.method, m.id)
			}
		case <-c.exited:
			return
		}
	}
}

// closeStdin asks the writer to close stdin after every queued line.
func (c *Client) closeStdin() {
	select {
	case c.writeQ <- outgoing{eof: true}:
	case <-c.writerDone:
	}
}
