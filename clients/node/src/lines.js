// lines.js — owns bounded line splitting of a byte stream: Buffers in, one UTF-8 string per
// `\n`-terminated line out (a `\r` before the `\n` removed, blank lines skipped). A partial line
// is never allowed to grow past `maxLineBytes`: past it the reader either fails (stdout: the
// protocol cannot be resynchronised safely) or truncates the line (stderr: logs only). On stdout
// a chunk's complete lines are decoded at once (`decodeRuns`): one native call per chunk.

export class LineReader {
  /**
   * @param {object} options
   * @param {number} options.maxLineBytes longest line accepted, in bytes (without the `\n`)
   * @param {(line: string) => void} options.onLine called for every non-blank line
   * @param {(bytes: number) => void} [options.onOverflow] called once when a line passes the
   *   bound; the reader then ignores all further input. Without it, over-long lines are
   *   truncated to `maxLineBytes` and the rest of the line is discarded.
   * @param {boolean} [options.decodeRuns] decode a chunk's complete lines with one UTF-8 decode and
   *   hand out slices of that text (one native call per chunk instead of one per line). A slice
   *   keeps its chunk's text alive, so only for a consumer that drops its lines once parsed.
   */
  constructor({ maxLineBytes, onLine, onOverflow, decodeRuns = false }) {
    if (!(Number.isInteger(maxLineBytes) && maxLineBytes > 0)) {
      throw new TypeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
    }
    this.maxLineBytes = maxLineBytes;
    this.decodeRuns = decodeRuns;
    this.onLine = onLine;
    this.onOverflow = onOverflow;
    this.failed = false;
    this.pieces = []; // bytes of the current partial line
    this.pendingBytes = 0;
    this.discarding = false; // truncate mode: dropping the rest of an over-long line
  }

  /** Feeds one chunk. */
  push(chunk) {
    if (this.failed) return;
    const max = this.maxLineBytes;
    let start = 0;
    if (this.decodeRuns && this.pendingBytes === 0 && !this.discarding) {
      // Every complete line of the chunk at once: they fit the bound together, so each one does.
      const last = chunk.lastIndexOf(10);
      if (last !== -1 && last <= max) {
        this.emitRun(chunk.toString('utf8', 0, last));
        if (this.failed) return;
        start = last + 1;
      }
    }
    let nl = chunk.indexOf(10, start);
    // Fast path: no partial line pending — decode each complete line straight from the chunk.
    while (nl !== -1) {
      if (this.pendingBytes === 0 && !this.discarding) {
        if (nl - start > max) {
          if (!this.overflow(chunk, start, nl)) return;
        } else {
          this.emit(chunk, start, nl);
        }
      } else if (this.discarding) {
        this.discarding = false;
      } else {
        const total = this.pendingBytes + (nl - start);
        if (total > max && this.onOverflow) {
          this.fail(total);
          return;
        }
        if (total > max) {
          this.pieces.push(chunk.subarray(start, nl));
          const joined = Buffer.concat(this.pieces);
          this.pieces = [];
          this.pendingBytes = 0;
          if (!this.overflow(joined, 0, joined.length)) return;
        } else {
          this.pieces.push(chunk.subarray(start, nl));
          const joined = Buffer.concat(this.pieces, total);
          this.pieces = [];
          this.pendingBytes = 0;
          this.emit(joined, 0, total);
        }
      }
      if (this.failed) return;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length && !this.discarding) {
      const rest = chunk.length - start;
      if (this.pendingBytes + rest > max && this.onOverflow) {
        this.fail(this.pendingBytes + rest);
        return;
      }
      if (this.pendingBytes + rest > max) {
        this.pieces.push(chunk.subarray(start));
        const joined = Buffer.concat(this.pieces);
        this.pieces = [];
        this.pendingBytes = 0;
        if (!this.overflow(joined, 0, joined.length)) return;
        this.discarding = true; // the rest of this line, up to its `\n`, is dropped
      } else {
        // Copy: the stream may reuse the chunk's memory.
        this.pieces.push(Buffer.from(chunk.subarray(start)));
        this.pendingBytes += rest;
      }
    }
  }

  /** End of input: a final line without `\n` is still delivered. */
  end() {
    if (this.failed || this.pendingBytes === 0) return;
    const joined = Buffer.concat(this.pieces, this.pendingBytes);
    this.pieces = [];
    this.pendingBytes = 0;
    this.emit(joined, 0, joined.length);
  }

  /** Emits each line of `text` (lines joined by `\n`, none longer than the bound). */
  emitRun(text) {
    let from = 0;
    for (;;) {
      const nl = text.indexOf('\n', from);
      const end = nl === -1 ? text.length : nl;
      this.emitText(text, from, end);
      if (nl === -1 || this.failed) return;
      from = nl + 1;
    }
  }

  emitText(text, start, end) {
    if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
    if (end <= start) return;
    this.deliver(start === 0 && end === text.length ? text : text.slice(start, end));
  }

  emit(buf, start, end) {
    if (end > start && buf[end - 1] === 13) end -= 1;
    if (end <= start) return;
    this.deliver(buf.toString('utf8', start, end));
  }

  deliver(line) {
    // Blank (all-whitespace) lines are skipped, as the protocol's framing rule says.
    const c = line.charCodeAt(0);
    if ((c === 32 || c === 9 || c === 13 || c === 11 || c === 12) && line.trim() === '') return;
    this.onLine(line);
  }

  /**
   * Fail mode: drops the partial line without joining it (only its size is reported), so an
   * over-long line never costs more than the bound it passed.
   */
  fail(bytes) {
    this.failed = true;
    this.pieces = [];
    this.pendingBytes = 0;
    this.onOverflow(bytes);
  }

  /** Returns true when reading may continue (truncate mode). */
  overflow(buf, start, end) {
    if (this.onOverflow) {
      this.fail(end - start);
      return false;
    }
    this.emit(buf, start, start + this.maxLineBytes);
    return true;
  }
}
