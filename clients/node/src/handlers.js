// handlers.js — owns the host's side of the sidecar's requests (PROTOCOL.md §17): which async
// handler answers each method, the `capabilities` that `initialize` declares for them (nothing
// registered → nothing declared), the roots list behind `roots/list`, and turning one handler's
// outcome into its response line: the result object, the error a HandlerError carries, or -32603
// for anything else. The client (client.js) routes requests here and owns their cancellation.

import { HandlerError } from './errors.js';

/** Request method → the capability a handler for it declares. */
export const HOST_METHODS = Object.freeze({
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
  'auth/authorize': 'auth',
});

// What a registered handler declares unless `capabilities` refines it. Elicitation declares form
// mode only (as `{}` would); a host whose handler opens URLs adds `url: {}`. Roots can always be
// announced as changed, through setRoots().
const DEFAULT_DECLARATION = Object.freeze({
  sampling: () => ({}),
  elicitation: () => ({ form: {} }),
  roots: () => ({ listChanged: true }),
  auth: () => ({}),
});

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Checks a roots list (`[{uri, name?}]`) and returns a copy. */
export function checkRoots(roots, what = 'roots') {
  if (!Array.isArray(roots)) throw new TypeError(`${what} must be an array of {uri, name?}, got ${typeof roots}`);
  return roots.map((root, i) => {
    if (!isObject(root) || typeof root.uri !== 'string') {
      throw new TypeError(`${what}[${i}] must be an object with a string uri, got ${JSON.stringify(root)}`);
    }
    return { ...root };
  });
}

export class HostHandlers {
  #handlers = new Map(); // method -> async (params, context) => result
  #capabilities = {};
  #roots = null; // the list the built-in roots/list handler answers; null without roots

  /**
   * @param {object} options the start options
   * @param {Record<string, Function>} [options.handlers] method → async handler
   * @param {Record<string, object>} [options.capabilities] refines a registered handler's declaration
   * @param {Array<{uri: string, name?: string}>} [options.roots] initial roots (installs a built-in
   *   `roots/list` handler answering them, unless one is registered)
   */
  constructor({ handlers = {}, capabilities = {}, roots } = {}) {
    if (!isObject(handlers)) throw new TypeError('handlers must be an object: method → async handler');
    for (const [method, handler] of Object.entries(handlers)) {
      if (!(method in HOST_METHODS)) {
        throw new TypeError(`no request ${JSON.stringify(method)} comes from the sidecar; handlers: ${Object.keys(HOST_METHODS).join(', ')}`);
      }
      if (typeof handler !== 'function') throw new TypeError(`handlers[${JSON.stringify(method)}] must be a function`);
      this.#handlers.set(method, handler);
    }
    if (roots !== undefined) {
      this.#roots = checkRoots(roots);
      if (!this.#handlers.has('roots/list')) this.#handlers.set('roots/list', () => ({ roots: this.roots }));
    }
    if (!isObject(capabilities)) throw new TypeError('capabilities must be an object');
    const declared = new Map([...this.#handlers.keys()].map((method) => [HOST_METHODS[method], method]));
    for (const [name, value] of Object.entries(capabilities)) {
      if (!declared.has(name)) {
        const method = Object.keys(HOST_METHODS).find((m) => HOST_METHODS[m] === name);
        throw new TypeError(
          method === undefined
            ? `unknown capability ${JSON.stringify(name)}; known: ${Object.values(HOST_METHODS).join(', ')}`
            : `capabilities.${name} needs a handler for ${method}`,
        );
      }
      if (!isObject(value)) throw new TypeError(`capabilities.${name} must be an object`);
    }
    for (const name of declared.keys()) this.#capabilities[name] = capabilities[name] ?? DEFAULT_DECLARATION[name]();
  }

  /** `initialize` `capabilities`, or undefined when nothing is registered (then none is sent). */
  get declaration() {
    return Object.keys(this.#capabilities).length === 0 ? undefined : this.#capabilities;
  }

  /** The handler of `method`, or undefined. */
  handler(method) {
    return this.#handlers.get(method);
  }

  /** Whether `roots/list` is answered (so `notifications/roots/list_changed` means something). */
  get answersRoots() {
    return this.#handlers.has('roots/list');
  }

  /** The current roots (a copy), or null when the client was started without `roots`. */
  get roots() {
    return this.#roots === null ? null : this.#roots.map((root) => ({ ...root }));
  }

  set roots(roots) {
    this.#roots = checkRoots(roots);
  }
}

/**
 * Runs `handler(params, context)` and returns the response line for request `id` (with `\n`):
 * the result if it is an object, the HandlerError's error, or -32603 naming what went wrong.
 */
export async function answerLine(id, method, handler, params, context) {
  let outcome;
  try {
    const result = await handler(params, context);
    outcome = isObject(result)
      ? { result }
      : { error: { code: -32603, message: `the host's ${method} handler returned ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}, not an object` } };
  } catch (err) {
    outcome = { error: errorObject(err, method) };
  }
  try {
    return `${JSON.stringify({ jsonrpc: '2.0', id, ...outcome })}\n`;
  } catch (err) {
    // A result JSON cannot carry (a cycle, a BigInt): the sidecar still gets an answer.
    const error = { code: -32603, message: `the host's ${method} handler returned a result that is not JSON: ${err.message}` };
    return `${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`;
  }
}

function errorObject(err, method) {
  if (err instanceof HandlerError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: -32603, message: message === '' ? `the host's ${method} handler failed` : message };
}
