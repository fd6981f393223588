// queue.go owns the bounded, drop-oldest queue behind the Notifications and
// Logs channels: the reader goroutine is its only producer and never blocks.

package client

import "sync/atomic"

// dropOldestQueue is a bounded channel with a single producer (the reader
// goroutine). When full, push drops the oldest queued item and counts it,
// so the reader never blocks: a host that stops reading cannot stall
// responses, and memory stays bounded by the channel's capacity.
type dropOldestQueue[T any] struct {
	ch      chan T
	dropped atomic.Uint64
}

func newDropOldestQueue[T any](size int) *dropOldestQueue[T] {
	return &dropOldestQueue[T]{ch: make(chan T, size)}
}

func (q *dropOldestQueue[T]) push(v T) {
	for {
		select {
		case q.ch <- v:
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
func (q *dropOldestQueue[T]) close() { close(q.ch) }
