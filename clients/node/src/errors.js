// errors.js — owns the one error type of this package, SidecarError, and the table of
// stable error codes: the host protocol's codes (PROTOCOL.md §12; generated from
// proto/schema/error.json into ../generated.js) plus the few that only this client raises
// (binary not found, sidecar exited, client closed, …); and HandlerError, the error a host's
// handler throws to answer one of the sidecar's requests (PROTOCOL.md §17) with a JSON-RPC error.

import { RPC_CODES } from '../generated.js';

export { RPC_CODES };

/** Codes raised by this client itself (never sent by the sidecar); `rpcCode` is undefined. */
export const CLIENT_CODES = Object.freeze([
  'BINARY_NOT_FOUND', // no sidecar binary at any place looked at (data.searched)
  'SPAWN_FAILED', // the binary could not be started (data.path, data.errno)
  'SIDECAR_EXITED', // the sidecar exited while a request was waiting (data.exit)
  'CLOSED', // the client was closed (or is closing) when the request was made
  'LINE_TOO_LONG', // a stdout line exceeded maxLineBytes (data.limit); the client is closed
  'INVALID_OUTPUT', // a stdout line that is not a JSON object (the client is closed), or a response with neither result nor error (that call fails)
  'TIMEOUT', // the sidecar did not answer initialize within startTimeoutMs (data.limit)
]);

// Reverse table for an error whose data.code is missing (§14: handle an unknown
// data.code by its numeric code). -32600 is ambiguous; INVALID_REQUEST is the JSON-RPC meaning.
const BY_NUMBER = new Map();
for (const [code, num] of Object.entries(RPC_CODES)) {
  if (!BY_NUMBER.has(num)) BY_NUMBER.set(num, code);
}

/**
 * The only error this package throws or rejects with.
 * - `code`: stable string (protocol code from `error.data.code`, or a client code above)
 * - `message`: human text naming the cause
 * - `data`: the protocol's `error.data` (e.g. `stderrTail`, `violations`, `server`), or client details
 * - `rpcCode`: the numeric JSON-RPC code when the error came from the sidecar, else undefined
 */
export class SidecarError extends Error {
  constructor(code, message, { data, rpcCode, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'SidecarError';
    this.code = code;
    this.data = data ?? {};
    this.rpcCode = rpcCode;
  }

  /** Builds a SidecarError from a JSON-RPC error object `{code, message, data}`. */
  static fromRpc(error, method) {
    const rpcCode = Number.isInteger(error?.code) ? error.code : undefined;
    const data = error?.data !== null && typeof error?.data === 'object' ? error.data : {};
    const code =
      typeof data.code === 'string' ? data.code : (BY_NUMBER.get(rpcCode) ?? `RPC_${rpcCode ?? 'UNKNOWN'}`);
    const message = typeof error?.message === 'string' ? error.message : `${method ?? 'request'} failed (${code})`;
    return new SidecarError(code, message, { data, rpcCode });
  }
}

/**
 * Thrown (or rejected) by a handler of a request from the sidecar (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`, `auth/authorize`) to answer it with exactly this JSON-RPC
 * error, e.g. `new HandlerError(-1, 'rejected by the user')`. Any other exception a handler
 * throws is answered -32603 (internal error) with its message.
 * - `code`: the JSON-RPC error code (an integer)
 * - `message`: the error's message, as the server will see it
 * - `data`: optional `error.data`
 */
export class HandlerError extends Error {
  constructor(code, message, { data } = {}) {
    if (!Number.isInteger(code)) throw new TypeError(`HandlerError code must be an integer, got ${code}`);
    super(message);
    this.name = 'HandlerError';
    this.code = code;
    this.data = data;
  }

  /** The JSON-RPC error object this answers with. */
  toJSON() {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
