// sidecar-logs.js — owns the sidecar's own log lines (its stderr) as this client reads them: the
// flags that set their level and format at spawn, and one line of `--log-format json` read into a
// record `{level, message, timestamp?, fields}` — whichever of the sidecar's two JSON shapes it
// has (the message under `fields`, or at the top level beside the event's and spans' fields).

/** The sidecar's log filter when neither the `logLevel` option, `--log` nor MCP_SIDECAR_LOG sets one. */
export const DEFAULT_LOG_LEVEL = 'warn';

const LEVELS = new Map([
  ['ERROR', 'error'],
  ['WARN', 'warn'],
  ['INFO', 'info'],
  ['DEBUG', 'debug'],
  ['TRACE', 'trace'],
]);

// Keys of a JSON line that are the record's own, never one of its fields.
const RECORD_KEYS = new Set(['timestamp', 'level', 'message', 'fields', 'span', 'spans', 'target', 'threadName', 'threadId']);

const hasFlag = (args, flag) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));

/**
 * The start options about the sidecar's own logs, checked (a TypeError before anything is spawned):
 * `stderr` (`'log'`, the default: read here; `'inherit'`, `'ignore'` or a line callback: raw
 * text), `onLog`, `logLevel`; and the sidecar arguments they give, the caller's `args` first.
 */
export function logSettings({ stderr = 'log', onLog, logLevel, args = [], env = process.env }) {
  if (!(stderr === 'log' || stderr === 'inherit' || stderr === 'ignore' || typeof stderr === 'function')) {
    throw new TypeError(`stderr must be 'log', 'inherit', 'ignore' or a function, got ${String(stderr)}`);
  }
  if (onLog !== undefined && typeof onLog !== 'function') throw new TypeError('onLog must be a function');
  if (onLog !== undefined && stderr !== 'log') {
    throw new TypeError(`onLog needs stderr: 'log' (the default); with stderr ${typeof stderr === 'function' ? 'a function' : `'${stderr}'`} the lines are not read`);
  }
  if (!Array.isArray(args)) throw new TypeError('args must be an array of strings');
  const structured = stderr === 'log';
  return { stderr, onLog, structured, args: [...args, ...logFlags({ args, env, logLevel, structured })] };
}

/**
 * The sidecar flags this client adds after the caller's `args`: `--log <level>` (the `logLevel`
 * option, else `warn` unless the sidecar's environment sets MCP_SIDECAR_LOG) and, when the client
 * reads the lines itself, `--log-format json`. A flag the caller's `args` already has is left to
 * them (the sidecar refuses one given twice).
 */
export function logFlags({ args, env, logLevel, structured }) {
  if (logLevel !== undefined && (typeof logLevel !== 'string' || logLevel.trim() === '')) {
    throw new TypeError(`logLevel must be a non-empty string (a level such as 'warn' or 'debug', or a filter), got ${String(logLevel)}`);
  }
  const flags = [];
  if (!hasFlag(args, '--log')) {
    // MCP's name of the level (`serverLogs: 'warning'`) would be a filter for a module named
    // "warning" to the sidecar, which then logs nothing at all.
    const level = (logLevel?.toLowerCase() === 'warning' ? 'warn' : logLevel) ?? (env.MCP_SIDECAR_LOG ? undefined : DEFAULT_LOG_LEVEL);
    if (level !== undefined) flags.push('--log', level);
  }
  if (structured && !hasFlag(args, '--log-format')) flags.push('--log-format', 'json');
  return flags;
}

/**
 * One stderr line as a record. A line that is not a JSON object (a panic message, or a text-format
 * line) is kept whole as the message of an `error` record: it is never dropped.
 * @param {string} line
 * @returns {{level: string, message: string, timestamp?: string, fields: Record<string, unknown>}}
 */
export function parseLogLine(line) {
  let event;
  try {
    event = JSON.parse(line);
  } catch {
    event = undefined;
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    return { level: 'error', message: line, fields: {} };
  }
  const fields = {};
  // Outermost span first, so an event's own field wins over a span's of the same name.
  const spans = Array.isArray(event.spans) ? event.spans : isObject(event.span) ? [event.span] : [];
  for (const span of spans) {
    if (!isObject(span)) continue;
    for (const [key, value] of Object.entries(span)) if (key !== 'name') fields[key] = value;
  }
  for (const [key, value] of Object.entries(event)) if (!RECORD_KEYS.has(key)) fields[key] = value;
  let message = event.message;
  if (isObject(event.fields)) {
    for (const [key, value] of Object.entries(event.fields)) {
      if (key === 'message') message ??= value;
      else fields[key] = value;
    }
  }
  const record = {
    level: LEVELS.get(typeof event.level === 'string' ? event.level.toUpperCase() : '') ?? 'info',
    message: typeof message === 'string' ? message : JSON.stringify(message ?? ''),
    fields,
  };
  if (typeof event.timestamp === 'string') record.timestamp = event.timestamp;
  if (typeof event.target === 'string') record.target = event.target;
  return record;
}

/** A record as one line of text (`WARN message`), for the stderr tail errors carry. */
export function recordText({ level, message }) {
  return `${level.toUpperCase()} ${message}`;
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
