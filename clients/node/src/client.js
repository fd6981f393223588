// client.js — owns the host-protocol v1 session: `initialize`, one typed async method per
// protocol method, matching responses to requests by id (many in flight), AbortSignal
// cancellation (`notifications/cancelled`), delivering notifications (EventEmitter events and
// bounded async iterators), and closing (`shutdown`, wait for exit, kill after a timeout).

import { EventEmitter } from 'node:events';
import { findBinary } from './binary.js';
import { SidecarProcess } from './child.js';
import { SidecarError, RPC_CODES } from './errors.js';
import { LineReader } from './lines.js';
import { NotificationStream } from './notifications.js';
import { VERSION } from './version.js';

const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
const KILL_WAIT_MS = 5_000;

const START_OPTIONS = new Set([
  'binaryPath', 'args', 'env', 'cwd', 'stderr', 'clientInfo', 'toolFormat', 'strict', 'nameTemplate',
  'maxNameLength', 'requireTrust', 'maxLineBytes', 'closeTimeoutMs', 'notificationBufferSize',
]);

const cancelledError = (method, id, reason) =>
  new SidecarError(
    'CANCELLED',
    id === undefined
      ? `${method} was not sent: its AbortSignal was already aborted`
      : `${method} (request ${id}) was cancelled by its AbortSignal`,
    { rpcCode: RPC_CODES.CANCELLED, data: id === undefined ? {} : { requestId: id }, cause: reason },
  );

function omitUndefined(object) {
  const out = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value;
  return out;
}

export class SidecarClient extends EventEmitter {
  #proc;
  #pending = new Map(); // id -> {resolve, reject, method, signal, onAbort}
  #nextId = 1;
  #out = '';
  #flushScheduled = false;
  #streams = new Set();
  #bufferSize;
  #closeTimeoutMs;
  #closePromise = null;
  #failure = null; // SidecarError that every new request gets (closed, exited, broken output)
  #initializeResult = null;

  /**
   * Spawns the sidecar and performs `initialize`. Resolves once the sidecar answered.
   * @param {import('../index.js').StartOptions} [options]
   * @returns {Promise<SidecarClient>}
   */
  static async start(options = {}) {
    for (const key of Object.keys(options)) {
      if (!START_OPTIONS.has(key)) {
        throw new TypeError(`unknown option ${JSON.stringify(key)}; known: ${[...START_OPTIONS].join(', ')}`);
      }
    }
    const binary = findBinary({ binaryPath: options.binaryPath });
    const client = new SidecarClient(binary, options);
    try {
      client.#initializeResult = await client.#request(
        'initialize',
        omitUndefined({
          protocolVersion: 1,
          clientInfo: options.clientInfo ?? { name: 'mcp-sidecar-node', version: VERSION },
          toolFormat: options.toolFormat,
          strict: options.strict,
          nameTemplate: options.nameTemplate,
          maxNameLength: options.maxNameLength,
          requireTrust: options.requireTrust,
        }),
      );
    } catch (err) {
      await client.close({ timeoutMs: 2000 });
      throw err;
    }
    return client;
  }

  /** Use `SidecarClient.start()`; the constructor only spawns, without `initialize`. */
  constructor(binary, options = {}) {
    super();
    this.binaryPath = binary.path;
    this.binarySource = binary.source;
    this.#bufferSize = options.notificationBufferSize ?? 1024;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    const proc = new SidecarProcess({
      path: binary.path,
      args: options.args,
      env: options.env,
      cwd: options.cwd,
      stderr: options.stderr,
    });
    this.#proc = proc;
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const reader = new LineReader({
      maxLineBytes,
      onLine: (line) => this.#onLine(line),
      onOverflow: (bytes) =>
        this.#fail(
          new SidecarError(
            'LINE_TOO_LONG',
            `the sidecar wrote a stdout line longer than maxLineBytes (${maxLineBytes} bytes; ${bytes} bytes buffered); the client was closed`,
            { data: { setting: 'maxLineBytes', limit: maxLineBytes } },
          ),
        ),
    });
    proc.stdout.on('data', (chunk) => reader.push(chunk));
    proc.stdout.on('end', () => reader.end());
    proc.exited.then((exit) => this.#onExit(exit));
  }

  /** The sidecar's process id (undefined if it could not be spawned). */
  get pid() {
    return this.#proc.pid;
  }

  /** The `initialize` result: `{protocolVersion, serverInfo, capabilities}`. */
  get initializeResult() {
    return this.#initializeResult;
  }

  /** `{code, signal}` once the sidecar exited, else null. */
  get exitStatus() {
    return this.#proc.exit;
  }

  /** True once close() was called or the sidecar is gone. */
  get closed() {
    return this.#failure !== null;
  }

  // ---- typed methods (PROTOCOL.md §4) ----

  addServer(name, config, { wait, trust, signal } = {}) {
    return this.#request('servers/add', omitUndefined({ name, config, wait, trust }), signal);
  }

  /**
   * `servers/load`: exactly one of `path` (file or directory), `json` (inline document) or
   * `text` (TOML/YAML/JSON), plus `dialect?`, `inputs?`, `trust?` ({server: digest}), `wait?`.
   * Problems are `diagnostics` in the result, never a rejection.
   */
  loadServers({ path, json, text, dialect, inputs, trust, wait, signal } = {}) {
    return this.#request('servers/load', omitUndefined({ path, json, text, dialect, inputs, trust, wait }), signal);
  }

  /** `servers/test`: starts `config`, lists its tools, stops it; nothing is registered. */
  testServer(config, { name, trust, signal } = {}) {
    return this.#request('servers/test', omitUndefined({ config, name, trust }), signal);
  }

  removeServer(name, { signal } = {}) {
    return this.#request('servers/remove', { name }, signal);
  }

  restartServer(name, { signal } = {}) {
    return this.#request('servers/restart', { name }, signal);
  }

  listServers({ signal } = {}) {
    return this.#request('servers/list', undefined, signal);
  }

  listTools({ format, strict, servers, signal } = {}) {
    return this.#request('tools/list', omitUndefined({ format, strict, servers }), signal);
  }

  callTool(name, args, { timeoutMs, format, signal } = {}) {
    // The hot path: build params directly rather than through omitUndefined.
    const params = args === undefined ? { name } : { name, arguments: args };
    if (timeoutMs !== undefined) params.timeoutMs = timeoutMs;
    if (format !== undefined) params.format = format;
    return this.#request('tools/call', params, signal);
  }

  /** `results/read`: bytes `offset..offset+length` of a truncated result's full text (`truncated.handle`). */
  readResult(handle, { offset, length, signal } = {}) {
    return this.#request('results/read', omitUndefined({ handle, offset, length }), signal);
  }

  ping({ signal } = {}) {
    return this.#request('ping', undefined, signal);
  }

  /** Same as close(): `shutdown`, wait for the sidecar to exit (kill it after the timeout). */
  shutdown(options) {
    return this.close(options);
  }

  /**
   * Sends `shutdown`, waits for the sidecar to exit, and kills it (SIGKILL) if it has not
   * exited after `timeoutMs` (default: the `closeTimeoutMs` start option, 10 s). Idempotent.
   * @returns {Promise<{code: number|null, signal: string|null}>} how the sidecar exited
   */
  close({ timeoutMs = this.#closeTimeoutMs } = {}) {
    if (this.#closePromise !== null) return this.#closePromise;
    if (this.#failure === null) {
      this.#failure = new SidecarError('CLOSED', 'the client is closed');
    }
    const proc = this.#proc;
    this.#closePromise = (async () => {
      proc.hold(1);
      try {
        if (proc.exit === null && proc.pid !== undefined) {
          // `shutdown` answers the requests in flight (SHUTTING_DOWN), stops every server,
          // then the sidecar exits 0. EOF right behind it is the same request said twice.
          const id = this.#nextId++;
          this.#out += `{"jsonrpc":"2.0","id":${id},"method":"shutdown"}\n`;
          this.#flush();
          proc.endInput();
        }
        let exit = await proc.waitExit(timeoutMs);
        if (exit === null) {
          proc.kill('SIGKILL');
          exit = (await proc.waitExit(KILL_WAIT_MS)) ?? { code: null, signal: 'SIGKILL' };
        }
        return exit;
      } finally {
        proc.hold(-1);
      }
    })();
    return this.#closePromise;
  }

  [Symbol.asyncDispose]() {
    return this.close().then(() => undefined);
  }

  /**
   * An async iterator over notifications received from now on, `{method, params}`, buffered up
   * to `bufferSize` (default: the `notificationBufferSize` start option, 1024); when full, the
   * oldest is dropped and counted in `.dropped`. Ends when the client closes.
   */
  notifications({ bufferSize = this.#bufferSize, signal } = {}) {
    const stream = new NotificationStream({
      bufferSize,
      signal,
      detach: (s) => this.#streams.delete(s),
      waiting: (delta) => this.#proc.hold(delta),
    });
    if (this.#proc.exit !== null) stream.finish();
    else this.#streams.add(stream);
    return stream;
  }

  // ---- wire ----

  #request(method, params, signal) {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (signal?.aborted) return Promise.reject(cancelledError(method, undefined, signal.reason));
    const id = this.#nextId++;
    this.#out +=
      params === undefined
        ? `{"jsonrpc":"2.0","id":${id},"method":"${method}"}\n`
        : `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${JSON.stringify(params)}}\n`;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      process.nextTick(this.#flush);
    }
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, method, signal: undefined, onAbort: undefined };
      if (signal !== undefined) {
        entry.signal = signal;
        entry.onAbort = () => this.#cancel(id, entry);
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.#pending.set(id, entry);
      this.#proc.hold(1);
    });
  }

  // Writes are coalesced: every request made in one turn of the event loop goes out in one write.
  #flush = () => {
    this.#flushScheduled = false;
    const out = this.#out;
    if (out === '') return;
    this.#out = '';
    const { stdin } = this.#proc;
    if (!stdin.destroyed && !stdin.writableEnded) stdin.write(out);
  };

  #cancel(id, entry) {
    if (this.#pending.get(id) !== entry) return;
    this.#take(id, entry);
    this.#out += `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}\n`;
    this.#flush();
    entry.reject(cancelledError(entry.method, id, entry.signal.reason));
  }

  #take(id, entry) {
    this.#pending.delete(id);
    this.#proc.hold(-1);
    if (entry.signal !== undefined) entry.signal.removeEventListener('abort', entry.onAbort);
  }

  #onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) {
      this.#fail(
        new SidecarError(
          'INVALID_OUTPUT',
          `the sidecar wrote a stdout line that is not a JSON object: ${JSON.stringify(line.slice(0, 200))}; the client was closed`,
          { data: { line: line.slice(0, 1000) } },
        ),
      );
      return;
    }
    if (msg.method === undefined) {
      const entry = this.#pending.get(msg.id);
      if (entry === undefined) return; // cancelled, or an id:null error about a line we never sent
      this.#take(msg.id, entry);
      if (msg.error !== undefined) entry.reject(SidecarError.fromRpc(msg.error, entry.method));
      else entry.resolve(msg.result);
    } else if (msg.id === undefined && typeof msg.method === 'string') {
      this.#notify(msg.method, msg.params ?? {});
    }
  }

  #notify(method, params) {
    const notification = { method, params };
    for (const stream of this.#streams) stream.push(notification);
    try {
      this.emit('notification', notification);
      this.emit(method, params);
    } catch (err) {
      // A throwing listener must not break the reader: rethrow outside it.
      queueMicrotask(() => {
        throw err;
      });
    }
  }

  /** Fatal client-side failure: reject everything, stop the sidecar. */
  #fail(error) {
    if (this.#failure === null || this.#failure.code === 'CLOSED') this.#failure = error;
    this.#rejectAll(error);
    this.#proc.endInput();
    this.#proc.kill('SIGKILL');
  }

  #rejectAll(error) {
    for (const [id, entry] of this.#pending) {
      this.#take(id, entry);
      entry.reject(error);
    }
  }

  #onExit(exit) {
    const proc = this.#proc;
    let error;
    if (proc.spawnError !== null) {
      error = new SidecarError('SPAWN_FAILED', `could not start ${proc.path}: ${proc.spawnError.message}`, {
        data: { path: proc.path, errno: proc.spawnError.code },
        cause: proc.spawnError,
      });
    } else {
      const how = exit.signal !== null ? `signal ${exit.signal}` : `code ${exit.code}`;
      error = new SidecarError('SIDECAR_EXITED', `the sidecar exited (${how})`, {
        data: omitUndefined({ exit, stderrTail: proc.stderrTail === '' ? undefined : proc.stderrTail }),
      });
    }
    if (this.#failure === null) this.#failure = error;
    this.#rejectAll(this.#failure.code === 'CLOSED' ? this.#failure : error);
    for (const stream of this.#streams) stream.finish();
    this.emit('exit', exit);
  }
}

/** Shorthand for `SidecarClient.start(options)`. */
export function start(options) {
  return SidecarClient.start(options);
}
