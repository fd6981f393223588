// notifications.js — owns the bounded async iterator behind `client.notifications()`.
// Each iterator has its own buffer of at most `bufferSize` notifications; when a notification
// arrives and the buffer is full, the OLDEST buffered one is dropped and `dropped` counts it
// (the sidecar's notifications describe current state, so the newest matter most). The
// iterator ends when the client closes (after yielding what was buffered), on `break`/return(),
// or when its `signal` aborts.

export class NotificationStream {
  /**
   * @param {object} options
   * @param {number} [options.bufferSize] default 1024
   * @param {AbortSignal} [options.signal] ends the iteration when aborted
   * @param {(stream: NotificationStream) => void} options.detach called once when the stream ends
   * @param {(delta: 1|-1) => void} options.waiting called when a consumer starts/stops waiting
   */
  constructor({ bufferSize = 1024, signal, detach, waiting }) {
    if (!(Number.isInteger(bufferSize) && bufferSize > 0)) {
      throw new TypeError(`bufferSize must be a positive integer, got ${bufferSize}`);
    }
    this.bufferSize = bufferSize;
    this.buffer = [];
    this.waiters = [];
    this.done = false;
    this.dropped = 0;
    this.detach = detach;
    this.waiting = waiting;
    this.signal = signal;
    if (signal) {
      this.onAbort = () => this.return();
      if (signal.aborted) this.finish();
      else signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** Delivers one notification (called by the client). */
  push(notification) {
    if (this.done) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.waiting(-1);
      waiter({ value: notification, done: false });
      return;
    }
    if (this.buffer.length >= this.bufferSize) {
      this.buffer.shift();
      this.dropped += 1;
    }
    this.buffer.push(notification);
  }

  /** No more notifications will come: buffered ones are still yielded, then the iteration ends. */
  finish() {
    if (this.done) return;
    this.done = true;
    if (this.signal) this.signal.removeEventListener('abort', this.onAbort);
    this.detach(this);
    for (const waiter of this.waiters.splice(0)) {
      this.waiting(-1);
      waiter({ value: undefined, done: true });
    }
  }

  next() {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift(), done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    this.waiting(1);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the iteration now (what `break` in `for await` calls); buffered notifications are discarded. */
  return() {
    this.buffer = [];
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}
