// progress.go owns the routing of notifications/progress to the callback of
// the tools/call whose id it names (CallOptions.Progress).

package client

import (
	"encoding/json"
	"strconv"
)

// progressSink holds the latest update of one call not yet handed to its
// callback: the reader replaces it, the calling goroutine takes it. Like
// the sidecar, a callback that falls behind skips to the latest update.
type progressSink chan ProgressUpdate

func newProgressSink() progressSink { return make(progressSink, 1) }

// put stores u, replacing an update not taken yet; only the reader calls it.
func (s progressSink) put(u ProgressUpdate) {
	for {
		select {
		case s <- u:
			return
		default:
		}
		select {
		case <-s:
		default:
		}
	}
}

// flush hands a waiting update to fn, if there is one.
func (s progressSink) flush(fn func(ProgressUpdate)) {
	select {
	case u := <-s:
		fn(u)
	default:
	}
}

// routeProgress gives a notifications/progress to the sink of the call it
// names; one for a call that has ended (or never asked) is dropped.
func (c *Client) routeProgress(params json.RawMessage) {
	var u ProgressUpdate
	if json.Unmarshal(params, &u) != nil {
		return
	}
	id, err := strconv.ParseInt(string(u.RequestID), 10, 64)
	if err != nil {
		return
	}
	c.mu.Lock()
	sink := c.progress[id]
	c.mu.Unlock()
	if sink != nil {
		sink.put(u)
	}
}
