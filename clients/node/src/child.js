// child.js — owns the sidecar process: spawning it with piped stdin/stdout, routing its stderr
// (inherited, dropped, or split into bounded lines for a callback, never mixed into stdout),
// tracking its exit, keeping it from holding the Node event loop open while idle, and killing it.

import { spawn } from 'node:child_process';
import { LineReader } from './lines.js';

const STDERR_LINE_BYTES = 64 * 1024;
const STDERR_TAIL_CHARS = 8 * 1024;

export class SidecarProcess {
  /**
   * @param {object} options
   * @param {string} options.path executable
   * @param {string[]} [options.args]
   * @param {NodeJS.ProcessEnv} [options.env]
   * @param {string} [options.cwd]
   * @param {'inherit'|'ignore'|((line: string) => string|void)} [options.stderr] default 'inherit';
   *   a callback's string result is what the stderr tail keeps of the line (else the line itself)
   */
  constructor({ path, args = [], env, cwd, stderr = 'inherit' }) {
    this.path = path;
    this.spawnError = null;
    this.exit = null; // {code, signal} once exited
    this.stderrTail = '';
    let stderrMode = stderr;
    if (typeof stderr === 'function') stderrMode = 'pipe';
    else if (stderr !== 'inherit' && stderr !== 'ignore') {
      throw new TypeError(`stderr must be 'inherit', 'ignore' or a function, got ${String(stderr)}`);
    }
    const child = spawn(path, args, {
      stdio: ['pipe', 'pipe', stderrMode],
      env: env ?? process.env,
      cwd,
      windowsHide: true,
    });
    this.child = child;
    this.pid = child.pid;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    // A write to a dead sidecar fails with EPIPE; the exit handling reports it, so swallow here.
    child.stdin.on('error', () => {});
    if (typeof stderr === 'function') {
      const reader = new LineReader({
        maxLineBytes: STDERR_LINE_BYTES,
        onLine: (line) => {
          let kept = line;
          try {
            const shown = stderr(line);
            if (typeof shown === 'string') kept = shown;
          } catch (err) {
            queueMicrotask(() => {
              throw err;
            });
          }
          this.stderrTail = (this.stderrTail + kept + '\n').slice(-STDERR_TAIL_CHARS);
        },
      });
      child.stderr.on('data', (chunk) => reader.push(chunk));
      child.stderr.on('end', () => reader.end());
    }
    this.exited = new Promise((resolve) => {
      child.on('error', (err) => {
        // Spawn failures ('close' follows); errors of kill() on a dead process are ignored.
        if (this.pid === undefined) this.spawnError = err;
      });
      child.on('exit', () => {
        // If some descendant still holds stdout (or the stderr pipe) open, do not wait for it forever.
        const timer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr?.destroy();
        }, 2000);
        timer.unref();
      });
      child.on('close', (code, signal) => {
        this.exit = { code: this.spawnError ? null : code, signal };
        resolve(this.exit);
      });
    });
    this.refCount = 0;
    this.reffed = true;
    this.setRef(false);
  }

  /**
   * Keeps the Node process alive while something waits on the sidecar (requests in flight,
   * notification consumers); otherwise lets Node exit, which closes the sidecar's stdin (EOF),
   * and the sidecar then stops its servers and exits by itself.
   */
  hold(delta) {
    this.refCount += delta;
    const want = this.refCount > 0;
    if (want !== this.reffed) this.setRef(want);
  }

  setRef(on) {
    this.reffed = on;
    const { child } = this;
    for (const stream of [child.stdout, child.stdin, child.stderr]) {
      if (stream === null) continue;
      if (on) stream.ref?.();
      else stream.unref?.();
    }
    if (on) child.ref();
    else child.unref();
  }

  /** Closes the sidecar's stdin: EOF makes it stop every server and exit. */
  endInput() {
    if (!this.stdin.destroyed && !this.stdin.writableEnded) this.stdin.end();
  }

  kill(signal = 'SIGKILL') {
    if (this.exit === null && this.pid !== undefined) {
      try {
        this.child.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /**
   * Resolves to the exit status, or to null if it has not exited within `ms`. With
   * `keepAlive: false` the wait does not keep the Node process alive by itself.
   */
  waitExit(ms, { keepAlive = true } = {}) {
    if (this.exit !== null) return Promise.resolve(this.exit);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ms);
      if (!keepAlive) timer.unref();
      this.exited.then((exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
  }
}
