// client.js — owns the host-protocol v1 session: `initialize`, one typed async method per
// protocol method, matching responses to requests by id (many in flight), AbortSignal
// cancellation (`notifications/cancelled`, the call rejected with the signal's reason), routing a
// call's progress to its callback, running the host's handlers for the sidecar's requests
// concurrently (and cancelling one the sidecar withdraws), delivering notifications (EventEmitter
// events and bounded async iterators, one of them for server logs), routing the sidecar's own log
// records (`onLog`, the `'log'` event, else process warnings), and closing (`shutdown`, wait for
// exit, kill after a timeout).

import { EventEmitter } from 'node:events';
import { findBinary } from './binary.js';
import { SidecarProcess } from './child.js';
import { SidecarError } from './errors.js';
import { HostHandlers, answerLine, checkRoots } from './handlers.js';
import { LineReader } from './lines.js';
import { NotificationStream } from './notifications.js';
import { logSettings, parseLogLine, recordText } from './sidecar-logs.js';
import { VERSION } from './version.js';

const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
const KILL_WAIT_MS = 5_000;

const START_OPTIONS = new Set([
  'binaryPath', 'args', 'env', 'cwd', 'stderr', 'clientInfo', 'toolFormat', 'strict', 'nameTemplate',
  'maxNameLength', 'requireTrust', 'maxLineBytes', 'closeTimeoutMs', 'notificationBufferSize',
  'handlers', 'capabilities', 'roots', 'answerTimeoutMs', 'tokenStorage', 'defer', 'deferAboveTokens',
  'resourcesAsTools', 'pinTools', 'serverLogs', 'startTimeoutMs', 'signal', 'logLevel', 'onLog',
]);
const DEFAULT_START_TIMEOUT_MS = 30_000;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout fires at once past it

/**
 * What a request aborted by its caller's AbortSignal rejects with: the signal's reason, as `fetch`
 * and the other promise APIs of the platform do — a DOMException `AbortError` for `abort()`, a
 * `TimeoutError` for `AbortSignal.timeout()`, the caller's own value for `abort(reason)`. A signal
 * aborted without a reason (only a hand-made one can be) gets an `AbortError`.
 */
const abortReason = (signal) => signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

function omitUndefined(object) {
  const out = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value;
  return out;
}

export class SidecarClient extends EventEmitter {
  #proc;
  #pending = new Map(); // id -> {resolve, reject, method, signal, onAbort, onProgress}
  #nextId = 1;
  #out = '';
  #flushScheduled = false;
  #streams = new Set();
  #logStreams = new Set();
  #host; // HostHandlers: the handlers of the sidecar's requests, and the roots
  #handling = new Map(); // id of a sidecar request being handled -> {controller, method}
  #bufferSize;
  #closeTimeoutMs;
  #closePromise = null;
  #failure = null; // SidecarError that every new request gets (closed, exited, broken output)
  #initializeResult = null;
  #onLog; // the onLog start option, called with every record of the sidecar's own logs

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
    // Bad handlers or capabilities are a TypeError before anything is looked for or spawned.
    const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    if (!(startTimeoutMs === Infinity || (startTimeoutMs > 0 && startTimeoutMs <= MAX_TIMER_MS))) {
      throw new TypeError(`startTimeoutMs must be a positive number of milliseconds (or Infinity), got ${startTimeoutMs}`);
    }
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const host = new HostHandlers(options);
    const logs = logSettings(options);
    const binary = findBinary({ binaryPath: options.binaryPath });
    const client = new SidecarClient(binary, options, host, logs);
    try {
      const initialize = client.#request(
        'initialize',
        omitUndefined({
          protocolVersion: 1,
          clientInfo: options.clientInfo ?? { name: 'mcp-sidecar-node', version: VERSION },
          toolFormat: options.toolFormat,
          strict: options.strict,
          nameTemplate: options.nameTemplate,
          maxNameLength: options.maxNameLength,
          requireTrust: options.requireTrust,
          capabilities: client.#host.declaration,
          answerTimeoutMs: options.answerTimeoutMs,
          tokenStorage: options.tokenStorage,
          defer: options.defer,
          deferAboveTokens: options.deferAboveTokens,
          resourcesAsTools: options.resourcesAsTools,
          pinTools: options.pinTools,
          serverLogs: options.serverLogs,
        }),
      );
      client.#initializeResult = await settleStart(initialize, startTimeoutMs, signal);
    } catch (err) {
      await client.close({ timeoutMs: 2000 });
      throw err;
    }
    return client;
  }

  /** Use `SidecarClient.start()`; the constructor only spawns, without `initialize`. */
  constructor(binary, options = {}, host = new HostHandlers(options), logs = logSettings(options)) {
    super();
    this.#host = host;
    this.#onLog = logs.onLog;
    this.binaryPath = binary.path;
    this.binarySource = binary.source;
    this.#bufferSize = options.notificationBufferSize ?? 1024;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    const userStderr = logs.stderr;
    const proc = new SidecarProcess({
      path: binary.path,
      args: logs.args,
      env: options.env,
      cwd: options.cwd,
      stderr:
        userStderr === 'log'
          ? (line) => this.#onLogLine(line)
          : typeof userStderr === 'function'
            ? (line) => {
                userStderr(line); // its result is not the tail's business
              }
            : userStderr,
    });
    this.#proc = proc;
    const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    const reader = new LineReader({
      maxLineBytes,
      decodeRuns: true, // each line is parsed and dropped
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

  /** `servers/login`: the OAuth login of a remote server (§7.2); resolves to its status. */
  loginServer(name, { wait, signal } = {}) {
    return this.#request('servers/login', omitUndefined({ name, wait }), signal);
  }

  /** `servers/logout`: forgets the server's tokens and stops its session; status `needs_login`. */
  logoutServer(name, { signal } = {}) {
    return this.#request('servers/logout', { name }, signal);
  }

  /** `servers/stats`: every server's (or those named) calls, errors, latency, bytes, restarts. */
  serverStats({ servers, signal } = {}) {
    return this.#request('servers/stats', omitUndefined({ servers }), signal);
  }

  listTools({ format, strict, servers, defer, signal } = {}) {
    return this.#request('tools/list', omitUndefined({ format, strict, servers, defer }), signal);
  }

  /** `tools/search`: the best matches for `query`, best first, each with `score` (§9.6). */
  searchTools(query, { limit, servers, format, strict, signal } = {}) {
    return this.#request('tools/search', omitUndefined({ query, limit, servers, format, strict }), signal);
  }

  /** `tools/accept`: returns held tools (`withheld`, `pinTools`) with exactly these hashes to the set (§16). */
  acceptTools(tools, { signal } = {}) {
    return this.#request('tools/accept', { tools }, signal);
  }

  /**
   * `tools/call`. With `onProgress`, the call asks for progress (`progress: true`) and every
   * `notifications/progress` naming this call's id is passed to it until the call ends.
   */
  callTool(name, args, { timeoutMs, format, signal, onProgress, resetTimeoutOnProgress, maxTotalTimeoutMs, traceparent, tracestate } = {}) {
    // The hot path: build params directly rather than through omitUndefined.
    const params = args === undefined ? { name } : { name, arguments: args };
    if (timeoutMs !== undefined) params.timeoutMs = timeoutMs;
    if (format !== undefined) params.format = format;
    if (onProgress !== undefined) {
      if (typeof onProgress !== 'function') throw new TypeError('onProgress must be a function');
      params.progress = true;
    }
    if (resetTimeoutOnProgress !== undefined) params.resetTimeoutOnProgress = resetTimeoutOnProgress;
    if (maxTotalTimeoutMs !== undefined) params.maxTotalTimeoutMs = maxTotalTimeoutMs;
    if (traceparent !== undefined) params.traceparent = traceparent;
    if (tracestate !== undefined) params.tracestate = tracestate;
    return this.#request('tools/call', params, signal, onProgress);
  }

  /** `results/read`: bytes `offset..offset+length` of a truncated result's full text (`truncated.handle`). */
  readResult(handle, { offset, length, signal } = {}) {
    return this.#request('results/read', omitUndefined({ handle, offset, length }), signal);
  }

  /** `resources/list`: every ready server's resources (or `server`'s), a page at a time (`cursor`). */
  listResources({ server, cursor, signal } = {}) {
    return this.#request('resources/list', omitUndefined({ server, cursor }), signal);
  }

  /** `resources/templates/list`: resource templates, paged like listResources. */
  listResourceTemplates({ server, cursor, signal } = {}) {
    return this.#request('resources/templates/list', omitUndefined({ server, cursor }), signal);
  }

  /** `resources/read`: the contents of `uri` on `server`, plus `text` and `output` in the format. */
  readResource(server, uri, { format, signal } = {}) {
    return this.#request('resources/read', omitUndefined({ server, uri, format }), signal);
  }

  /** `resources/subscribe`: `notifications/resources/updated` when `uri` changes (kept across restarts). */
  subscribeResource(server, uri, { signal } = {}) {
    return this.#request('resources/subscribe', { server, uri }, signal);
  }

  /** `resources/unsubscribe`. */
  unsubscribeResource(server, uri, { signal } = {}) {
    return this.#request('resources/unsubscribe', { server, uri }, signal);
  }

  /** `prompts/list`: every ready server's prompts (or `server`'s), paged like listResources. */
  listPrompts({ server, cursor, signal } = {}) {
    return this.#request('prompts/list', omitUndefined({ server, cursor }), signal);
  }

  /** `prompts/get`: the prompt's messages as sent, and as `output` in the format's message shape. */
  getPrompt(server, name, args, { format, signal } = {}) {
    return this.#request('prompts/get', omitUndefined({ server, name, arguments: args, format }), signal);
  }

  /**
   * `completion/complete`: values for `argument` (`{name, value}`) of `ref`
   * (`{type: 'ref/prompt', name}` or `{type: 'ref/resource', uri}`).
   */
  complete(server, ref, argument, { context, signal } = {}) {
    return this.#request('completion/complete', omitUndefined({ server, ref, argument, context }), signal);
  }

  /**
   * `logging/setLevel`: the level at and above which servers' logs reach `logs()`; for every
   * server (the session's level), or for one with `server`.
   */
  setLogLevel(level, { server, signal } = {}) {
    return this.#request('logging/setLevel', omitUndefined({ server, level }), signal);
  }

  /** The roots `roots/list` answers (a copy), or null without the `roots` start option. */
  get roots() {
    return this.#host.roots;
  }

  /**
   * Replaces the roots the built-in `roots/list` handler answers (the `roots` start option) and
   * announces the change (`notifications/roots/list_changed`): servers then ask again. With a
   * `roots/list` handler of one's own, call it without arguments after the handler's answer changed.
   */
  setRoots(roots) {
    if (!this.#host.answersRoots) {
      throw new TypeError('setRoots needs the roots start option or a roots/list handler (nothing answers roots/list)');
    }
    if (roots !== undefined) {
      const checked = checkRoots(roots);
      if (this.#host.roots === null) throw new TypeError('setRoots(roots) needs the roots start option; call setRoots() to announce a change of your handler');
      this.#host.roots = checked;
    }
    if (this.#failure !== null) throw this.#failure;
    this.#write('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n');
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
    return this.#openStream(this.#streams, bufferSize, signal);
  }

  /**
   * An async iterator over servers' log messages (`notifications/server/log` params: `{server,
   * level, logger?, data}`) received from now on. Bounded like notifications(): at most
   * `bufferSize` unread messages are kept; when full, the oldest is dropped and counted in
   * `.dropped`, so a consumer that stops reading never grows memory. Nothing arrives until a
   * level is set: the `serverLogs` start option or setLogLevel(). Ends when the client closes.
   */
  logs({ bufferSize = this.#bufferSize, signal } = {}) {
    return this.#openStream(this.#logStreams, bufferSize, signal);
  }

  #openStream(set, bufferSize, signal) {
    const stream = new NotificationStream({
      bufferSize,
      signal,
      detach: (s) => set.delete(s),
      waiting: (delta) => this.#proc.hold(delta),
    });
    if (this.#proc.exit !== null) stream.finish();
    else set.add(stream);
    return stream;
  }

  // ---- wire ----

  #request(method, params, signal, onProgress) {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
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
      const entry = { resolve, reject, method, signal: undefined, onAbort: undefined, onProgress };
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

  /** Queues one line (with its `\n`) for the next coalesced write. */
  #write(line) {
    this.#out += line;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      process.nextTick(this.#flush);
    }
  }

  #cancel(id, entry) {
    if (this.#pending.get(id) !== entry) return;
    this.#take(id, entry);
    this.#out += `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}\n`;
    this.#flush();
    entry.reject(abortReason(entry.signal));
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
      // A response: the hot path, untouched by handlers, progress and logs.
      const entry = this.#pending.get(msg.id);
      if (entry === undefined) return; // cancelled, or an id:null error about a line we never sent
      this.#take(msg.id, entry);
      if (msg.error !== undefined) entry.reject(SidecarError.fromRpc(msg.error, entry.method));
      else if ('result' in msg) entry.resolve(msg.result);
      else {
        entry.reject(
          new SidecarError(
            'INVALID_OUTPUT',
            `the sidecar answered ${entry.method} (request ${msg.id}) with neither result nor error: ${JSON.stringify(line.slice(0, 200))}`,
            { data: { line: line.slice(0, 1000) } },
          ),
        );
      }
    } else if (typeof msg.method !== 'string') {
      // Not a message of the protocol: ignored.
    } else if (msg.id === undefined || msg.id === null) {
      this.#onNotification(msg.method, msg.params ?? {});
    } else {
      this.#onRequest(msg.id, msg.method, msg.params ?? {});
    }
  }

  #onNotification(method, params) {
    switch (method) {
      case 'notifications/progress': {
        // Only the call named gets it; a call that ended has left #pending, so late ones drop.
        const entry = this.#pending.get(params.requestId);
        if (entry?.onProgress !== undefined) callListener(entry.onProgress, params);
        break;
      }
      case 'notifications/server/log':
        for (const stream of this.#logStreams) stream.push(params);
        break;
      case 'notifications/cancelled':
        this.#withdrawn(params);
        break;
      default:
    }
    this.#notify(method, params);
  }

  /**
   * A request from the sidecar (PROTOCOL.md §17): its handler runs concurrently — the reader
   * goes on at once — and its outcome is answered when it settles, unless the sidecar withdrew
   * the request meanwhile. No handler: -32601 (the sidecar only asks what was declared, so this
   * is a method newer than this client).
   */
  #onRequest(id, method, params) {
    if (this.#failure !== null) return; // closing: no answer could be written any more
    const handler = this.#host.handler(method);
    if (handler === undefined || this.#handling.has(id)) {
      const error = handler === undefined
        ? { code: -32601, message: `the host has no handler for ${method}` }
        : { code: -32600, message: `request id ${JSON.stringify(id)} is already being handled` };
      this.#write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
      return;
    }
    const controller = new AbortController();
    const handling = { controller, method };
    this.#handling.set(id, handling);
    answerLine(id, method, handler, params, { signal: controller.signal, requestId: id, client: this }).then((line) => {
      if (this.#handling.get(id) !== handling) return; // withdrawn, or the client is gone: nothing is sent
      this.#handling.delete(id);
      this.#write(line);
    });
  }

  /** The sidecar's `notifications/cancelled` for one of its requests: abort its handler, answer nothing. */
  #withdrawn({ requestId, reason }) {
    const handling = this.#handling.get(requestId);
    if (handling === undefined) return;
    this.#handling.delete(requestId);
    handling.controller.abort(
      new SidecarError(
        'CANCELLED',
        `the sidecar withdrew its ${handling.method} request ${JSON.stringify(requestId)}${typeof reason === 'string' ? `: ${reason}` : ''}`,
        { data: omitUndefined({ requestId, reason }) },
      ),
    );
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

  /**
   * One line of the sidecar's own log (stderr, `--log-format json`): to `onLog` and the `'log'`
   * event; with neither, a warning or an error becomes a process warning (`McpSidecarWarning`),
   * which Node prints unless warnings are silenced. Returns the line as the stderr tail keeps it.
   */
  #onLogLine(line) {
    const record = parseLogLine(line);
    if (this.#onLog !== undefined) callListener(this.#onLog, record);
    if (this.listenerCount('log') > 0) {
      try {
        this.emit('log', record);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    } else if (this.#onLog === undefined && (record.level === 'warn' || record.level === 'error')) {
      process.emitWarning(record.message, { type: 'McpSidecarWarning', code: record.level.toUpperCase() });
    }
    return recordText(record);
  }

  /**
   * Fatal client-side failure: reject everything and stop the sidecar by closing its stdin (EOF:
   * it stops its servers and exits 0). Its stdout is still read (and dropped) so it is never left
   * blocked on a full pipe before it reaches that EOF; one still running after `closeTimeoutMs`
   * is killed.
   */
  #fail(error) {
    if (this.#failure === null || this.#failure.code === 'CLOSED') this.#failure = error;
    this.#rejectAll(error);
    const proc = this.#proc;
    proc.endInput();
    proc.waitExit(this.#closeTimeoutMs, { keepAlive: false }).then((exit) => {
      if (exit === null) proc.kill('SIGKILL');
    });
  }

  #rejectAll(error) {
    for (const [id, entry] of this.#pending) {
      this.#take(id, entry);
      entry.reject(error);
    }
    // Handlers still running can no longer be answered: tell them to stop.
    for (const { controller } of this.#handling.values()) controller.abort(error);
    this.#handling.clear();
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
    for (const stream of this.#logStreams) stream.finish();
    this.emit('exit', exit);
  }
}

/** Calls a host callback from the reader; a throw must not break the reader, so it is rethrown outside it. */
function callListener(listener, value) {
  try {
    listener(value);
  } catch (err) {
    queueMicrotask(() => {
      throw err;
    });
  }
}

/**
 * The outcome of `initialize`, unless `startTimeoutMs` passes or `signal` aborts first (then a
 * TIMEOUT SidecarError named `TimeoutError`, or the signal's reason; the caller closes the client,
 * which settles the request).
 */
function settleStart(initialize, startTimeoutMs, signal) {
  if (startTimeoutMs === Infinity && signal === undefined) return initialize;
  initialize.catch(() => {}); // once abandoned, its rejection by close() is expected
  return new Promise((resolve, reject) => {
    let timer;
    const onAbort = () => {
      done();
      reject(abortReason(signal));
    };
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (startTimeoutMs !== Infinity) {
      timer = setTimeout(() => {
        done();
        const err = new SidecarError('TIMEOUT', `the sidecar did not answer initialize within startTimeoutMs (${startTimeoutMs} ms)`, {
          data: { setting: 'startTimeoutMs', limit: startTimeoutMs },
        });
        // A time bound this client applies: named as the platform names one (AbortSignal.timeout()).
        err.name = 'TimeoutError';
        reject(err);
      }, startTimeoutMs);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    initialize.then(
      (result) => {
        done();
        resolve(result);
      },
      (err) => {
        done();
        reject(err);
      },
    );
  });
}

/** Shorthand for `SidecarClient.start(options)`. */
export function start(options) {
  return SidecarClient.start(options);
}
