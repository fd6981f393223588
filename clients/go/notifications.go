// notifications.go owns the notifications the sidecar sends the host and
// the bounded queue that delivers them (overflow policy: drop the oldest).

package client

import (
	"encoding/json"
	"sync/atomic"
)

// Notification methods sent by the sidecar (PROTOCOL.md §5).
const (
	MethodServersChanged = "notifications/servers/changed"
	MethodToolsChanged   = "notifications/tools/changed"
)

// Notification is one notification from the sidecar. Params is always set;
// for the two known methods the typed field is decoded too (nil otherwise).
// Unknown methods (from a newer sidecar) are delivered with Params only.
type Notification struct {
	Method         string
	Params         json.RawMessage
	ServersChanged *ServersChanged // MethodServersChanged
	ToolsChanged   *ToolsChanged   // MethodToolsChanged
}

// decodeNotification builds a Notification; a known method whose params do
// not decode keeps only Params.
func decodeNotification(method string, params json.RawMessage) Notification {
	n := Notification{Method: method, Params: params}
	switch method {
	case MethodServersChanged:
		var p ServersChanged
		if json.Unmarshal(params, &p) == nil {
			n.ServersChanged = &p
		}
	case MethodToolsChanged:
		var p ToolsChanged
		if json.Unmarshal(params, &p) == nil {
			n.ToolsChanged = &p
		}
	}
	return n
}

// notifQueue is a bounded channel with a single producer (the reader
// goroutine). When full, push drops the oldest queued notification and
// counts it, so the reader never blocks: a host that stops reading
// notifications cannot stall responses. Hosts that miss notifications can
// always recover the current state with ListServers / ListTools.
type notifQueue struct {
	ch      chan Notification
	dropped atomic.Uint64
}

func newNotifQueue(size int) *notifQueue {
	return &notifQueue{ch: make(chan Notification, size)}
}

func (q *notifQueue) push(n Notification) {
	for {
		select {
		case q.ch <- n:
			return
		default:
		}
		select {
		case <-q.ch:
			q.dropped.Add(1)
		default: // the consumer made room meanwhile
		}
	}
}

// close is called once by the producer when the sidecar's stdout ends.
func (q *notifQueue) close() { close(q.ch) }
