// index.d.ts — TypeScript definitions of the public API (src/index.js). The host protocol v1
// shapes and error codes are generated from proto/schema/ into generated.d.ts and re-exported
// here, refined where a type says more than the schema (definitions by format, config unions).

import { EventEmitter } from 'node:events';

// ---------------------------------------------------------------- protocol shapes

// Generated from proto/schema/*.json (clients/codegen/generate.py). The interfaces named *Fields
// are refined below; the rest are re-exported as they are.
import type {
  ServerConfigFields,
  ErrorDataFields,
  ExitInfo,
  ServerSource,
  ToolFormat,
  ToolEntryFields,
  CallToolResultFields,
  ServerStatus,
  ServersChangedParams,
  ToolsChangedParams,
  ProtocolErrorCode,
  ConfigDialect,
  InitializeResult,
  LoadServersResult,
  ServerTestReport,
  ReadResultResult,
  ResourcesListResult,
  ResourceTemplatesListResult,
  ResourcesReadResult,
  PromptsListResult,
  PromptsGetResult,
  CompleteResult,
  SetLevelResult,
  ServersStatsResult,
  ToolsAcceptResult,
  ServerLogParams,
  ProgressParams,
  ResourcesUpdatedParams,
  SamplingParams,
  Root,
  AuthorizeParams,
  AuthorizeResult,
} from './generated.js';
export * from './generated.js';

/** Fields of every server config (PROTOCOL.md §7, Appendix). snake_case spellings are accepted by the sidecar too. */
export interface ServerConfigBase
  extends Omit<ServerConfigFields, 'command' | 'args' | 'env' | 'cwd' | 'inheritEnv' | 'url' | 'headers' | 'transport' | 'type'> {}

/** A spawned (stdio) server. */
export interface StdioServerConfig extends ServerConfigBase, Pick<ServerConfigFields, 'args' | 'env' | 'cwd' | 'inheritEnv'> {
  command: string;
  transport?: 'stdio';
  type?: 'stdio';
  url?: never;
}

/** A remote server (Streamable HTTP, or legacy HTTP+SSE). */
export interface RemoteServerConfig extends ServerConfigBase, Pick<ServerConfigFields, 'headers'> {
  url: string;
  transport?: Exclude<ServerConfigFields['transport'], 'stdio'>;
  type?: Exclude<ServerConfigFields['type'], 'stdio'>;
  command?: never;
}

/** `config` of servers/add and servers/test (PROTOCOL.md §7). */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

/** `error.data`: always `code`; the other fields depend on the code (PROTOCOL.md §12). */
export interface ErrorData extends Omit<Partial<ErrorDataFields>, 'code' | 'exit'> {
  code?: ErrorCode;
  exit?: ExitInfo | { code: number | null; signal: string | null };
  /** Client codes: BINARY_NOT_FOUND lists every place looked at. */
  searched?: Array<{ source: string; place: string; path: string | null; reason: string }>;
  [key: string]: unknown;
}

export type JsonSchemaObject = { type?: 'object'; properties?: Record<string, unknown>; [key: string]: unknown };

export interface OpenAIDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchemaObject; strict?: boolean };
}
export interface OpenAIResponsesDefinition {
  type: 'function';
  name: string;
  description?: string;
  parameters: JsonSchemaObject;
  strict: boolean;
}
/** A Gemini FunctionDeclaration; `parameters` is left out when the tool takes none. */
export interface GeminiDefinition {
  name: string;
  description?: string;
  parameters?: { type: 'OBJECT'; properties: Record<string, unknown>; required?: string[]; [key: string]: unknown };
}
export interface AnthropicDefinition {
  name: string;
  description?: string;
  input_schema: JsonSchemaObject;
}
export interface McpDefinition {
  name: string;
  inputSchema: JsonSchemaObject;
  [key: string]: unknown;
}
export interface DefinitionByFormat {
  openai: OpenAIDefinition;
  'openai-responses': OpenAIResponsesDefinition;
  anthropic: AnthropicDefinition;
  gemini: GeminiDefinition;
  mcp: McpDefinition;
}
export type ToolDefinition = DefinitionByFormat[ToolFormat];

/** One element of tools/list `tools` (PROTOCOL.md §9.2), its definition typed by format. */
export interface ToolEntry<D = ToolDefinition> extends Omit<ToolEntryFields, 'definition'> {
  definition: D;
  [key: string]: unknown;
}

export interface ToolsListResult<D = ToolDefinition> {
  tools: Array<ToolEntry<D>>;
  /** `sha256:<64 hex>` of the listed definitions (PROTOCOL.md §9.4). */
  fingerprint: string;
  [key: string]: unknown;
}

export interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

export type AnthropicToolResultBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } };

/** tools/call result (PROTOCOL.md §10). */
export interface CallToolResult extends Omit<CallToolResultFields, 'content' | 'output'> {
  content: ContentBlock[];
  /**
   * openai: string; openai-responses: string or input_text/input_image parts; anthropic: content
   * blocks; gemini: `{response: {output|error}, parts?}`; mcp: the raw CallToolResult.
   */
  output: string | AnthropicToolResultBlock[] | Array<Record<string, unknown>> | Record<string, unknown>;
  [key: string]: unknown;
}

/** tools/search result (PROTOCOL.md §9.6): entries best first, each with its score. */
export interface ToolsSearchResult<D = ToolDefinition> {
  tools: Array<ToolEntry<D> & { score: number; exact?: boolean }>;
  /** Tools that matched in all, before `limit`. */
  total: number;
  [key: string]: unknown;
}

/** A server log level (PROTOCOL.md §15.6), quietest first. */
export type LogLevel = ServerLogParams['level'];

/** Params of `notifications/resources/changed` and `notifications/prompts/changed`: list again. */
export interface ServerListChangedParams {
  server: string;
  [key: string]: unknown;
}

/** Params of the sidecar's `notifications/cancelled`: one of its requests is no longer waited for. */
export interface SidecarCancelledParams {
  requestId: string;
  reason?: string;
  [key: string]: unknown;
}

export type Notification =
  | { method: 'notifications/servers/changed'; params: ServersChangedParams }
  | { method: 'notifications/tools/changed'; params: ToolsChangedParams }
  | { method: 'notifications/progress'; params: ProgressParams }
  | { method: 'notifications/server/log'; params: ServerLogParams }
  | { method: 'notifications/resources/updated'; params: ResourcesUpdatedParams }
  | { method: 'notifications/resources/changed'; params: ServerListChangedParams }
  | { method: 'notifications/prompts/changed'; params: ServerListChangedParams }
  | { method: 'notifications/cancelled'; params: SidecarCancelledParams }
  | { method: string; params: Record<string, unknown> };

// ---------------------------------------------------------------- the sidecar's requests (§17)

/** The host's answer to `sampling/createMessage` (MCP CreateMessageResult). */
export interface SamplingResult {
  role: 'assistant' | 'user';
  content: ContentBlock | ContentBlock[];
  model: string;
  stopReason?: 'endTurn' | 'stopSequence' | 'maxTokens' | 'toolUse' | (string & {});
  [key: string]: unknown;
}

/** A server's `elicitation/create` (form mode: `requestedSchema`; URL mode: `url`, `elicitationId`). */
export interface ElicitationParams {
  /** The server that asks. */
  server: string;
  /** Absent means `form`. */
  mode?: 'form' | 'url';
  message: string;
  requestedSchema?: JsonSchemaObject;
  url?: string;
  elicitationId?: string;
  [key: string]: unknown;
}

/** The host's answer to `elicitation/create`. */
export interface ElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  /** The form's values (form mode, `accept`). */
  content?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A server's `roots/list`. */
export interface RootsListParams {
  server: string;
  [key: string]: unknown;
}

/** What every handler gets besides the params. */
export interface HandlerContext {
  /** Aborted when the sidecar withdraws the request (its reason: SidecarError CANCELLED) or the client ends. */
  signal: AbortSignal;
  /** The sidecar's request id (`sidecar-N`). */
  requestId: string | number;
  /** The client the request came through. */
  client: SidecarClient;
}

type Handler<P, R> = (params: P, context: HandlerContext) => R | Promise<R>;

/** Handlers of the sidecar's requests by method; each one registered declares its capability. */
export interface HostHandlers {
  'sampling/createMessage'?: Handler<SamplingParams, SamplingResult>;
  'elicitation/create'?: Handler<ElicitationParams, ElicitationResult>;
  'roots/list'?: Handler<RootsListParams, { roots: Root[] }>;
  /** The OAuth browser step of a remote server's login (PROTOCOL.md §7.2). */
  'auth/authorize'?: Handler<AuthorizeParams, AuthorizeResult>;
}

/** Refinements of the declarations of registered handlers (`initialize` `capabilities`). */
export interface HostCapabilities {
  /** Default `{}`; `context` allows includeContext, `tools` tool use in sampling. */
  sampling?: { context?: Record<string, never>; tools?: Record<string, never> };
  /** Default `{form: {}}`; add `url: {}` when the handler handles URL mode. */
  elicitation?: { form?: Record<string, never>; url?: Record<string, never> };
  /** Default `{listChanged: true}`. */
  roots?: { listChanged?: boolean };
  auth?: Record<string, never>;
}

// ---------------------------------------------------------------- errors

/** Thrown by a handler to answer the sidecar's request with exactly this JSON-RPC error. */
export declare class HandlerError extends Error {
  constructor(code: number, message: string, options?: { data?: unknown });
  readonly name: 'HandlerError';
  /** The JSON-RPC error code (e.g. -1: the user rejected the request). */
  code: number;
  data: unknown;
  toJSON(): { code: number; message: string; data?: unknown };
}

export type ClientErrorCode =
  | 'BINARY_NOT_FOUND' | 'SPAWN_FAILED' | 'SIDECAR_EXITED' | 'CLOSED' | 'LINE_TOO_LONG' | 'INVALID_OUTPUT' | 'TIMEOUT';

/** A stable code; unknown future protocol codes arrive as plain strings. */
export type ErrorCode = ProtocolErrorCode | ClientErrorCode | (string & {});

export declare const CLIENT_CODES: readonly ClientErrorCode[];

/**
 * The error type of every failure at run time. A request aborted by its caller's AbortSignal
 * rejects with the signal's reason instead, as `fetch` does.
 */
export declare class SidecarError extends Error {
  constructor(code: ErrorCode, message: string, options?: { data?: ErrorData; rpcCode?: number; cause?: unknown });
  /** `'TimeoutError'` for a time bound the client applies itself (`startTimeoutMs`: code TIMEOUT). */
  name: 'SidecarError' | 'TimeoutError';
  /** Stable string code: branch on this. */
  code: ErrorCode;
  /** `error.data` from the sidecar (e.g. `stderrTail`, `violations`), or client-side details. */
  data: ErrorData;
  /** Numeric JSON-RPC code when the error came from the sidecar; undefined for client codes. */
  rpcCode: number | undefined;
  static fromRpc(error: { code?: number; message?: string; data?: unknown }, method?: string): SidecarError;
}

// ---------------------------------------------------------------- binary discovery

export type BinarySource = 'option' | 'env' | 'package' | 'staged' | 'path';

export interface FindBinaryOptions {
  binaryPath?: string;
  env?: Record<string, string | undefined>;
  platform?: string;
  arch?: string;
  /** Linux only: which platform package to look for (`linux-x64` or `linux-x64-musl`); default told from this process. */
  libc?: 'glibc' | 'musl';
  /** File path or URL `require.resolve` starts from (default: the package itself). */
  resolveFrom?: string | URL;
  /** Directory holding `npm/<platform>-<arch>/bin/` staged copies (default: the package root). */
  packageRoot?: string;
}

export declare function findBinary(options?: FindBinaryOptions): { path: string; source: BinarySource };
export declare function executableName(platform?: string): string;
export declare const PLATFORM_PACKAGES: Readonly<Record<string, string>>;
export declare const ENV_VAR: 'MCP_SIDECAR_BIN';
export declare const VERSION: string;

// ---------------------------------------------------------------- client

export interface StartOptions {
  /** Explicit binary; otherwise MCP_SIDECAR_BIN, the shipped binary package, then PATH. */
  binaryPath?: string;
  /** Extra command-line arguments for the sidecar (e.g. `['--log', 'debug']`). */
  args?: string[];
  /** Environment of the sidecar (default `process.env`); servers only see an allowlist of it. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * The sidecar's stderr (its own logs): `'log'` (default) reads them as records for `onLog` and
   * the `'log'` event (with neither, warnings and errors become process warnings of type
   * `McpSidecarWarning`); `'inherit'` (raw text into this process's stderr), `'ignore'`, or one
   * call per raw line.
   */
  stderr?: 'log' | 'inherit' | 'ignore' | ((line: string) => void);
  /** Called with each of the sidecar's own log records from spawn on (`stderr: 'log'` only). */
  onLog?: (record: SidecarLogRecord) => void;
  /**
   * The sidecar's log filter (`--log`): `'error'`, `'warn'` (default; `'warning'` too), `'info'`, `'debug'`,
   * `'trace'`, `'off'`, or a filter such as `'mcp_sidecar=debug'`. Without it, MCP_SIDECAR_LOG in
   * the sidecar's environment applies when set; `--log` in `args` wins over both.
   */
  logLevel?: string;
  clientInfo?: { name: string; version: string };
  /** Session tool format (default `openai`). */
  toolFormat?: ToolFormat;
  /** Session default of OpenAI strict mode for listTools (default false). */
  strict?: boolean;
  /** Exposed-name template (default `mcp__{server}__{tool}`). */
  nameTemplate?: string;
  /** Longest exposed name, 16–256 (default 64). */
  maxNameLength?: number;
  /** Every server needs `trust` (its launch digest) before it starts; else TRUST_REQUIRED (default false). */
  requireTrust?: boolean;
  /** Longest stdout line accepted from the sidecar (default 64 MiB); beyond it the client fails with LINE_TOO_LONG. */
  maxLineBytes?: number;
  /** How long close() waits for the sidecar to exit before SIGKILL (default 10000 ms). */
  closeTimeoutMs?: number;
  /**
   * How long start() waits for the answer to `initialize` (default 30000 ms; `Infinity`: no bound).
   * Past it start() rejects with a SidecarError named `TimeoutError` (code TIMEOUT) and the sidecar
   * is stopped, so a sidecar that never answers cannot keep the host process alive.
   */
  startTimeoutMs?: number;
  /** Aborting it makes a start() still waiting for `initialize` reject with `signal.reason` (the sidecar is stopped). */
  signal?: AbortSignal;
  /** Default buffer of each notifications() and logs() iterator (default 1024). */
  notificationBufferSize?: number;
  /** Handlers of the sidecar's requests; `initialize` declares exactly these (nothing registered: nothing declared). */
  handlers?: HostHandlers;
  /** Refines what a registered handler declares (e.g. `{elicitation: {form: {}, url: {}}}`). */
  capabilities?: HostCapabilities;
  /** Initial roots: a built-in `roots/list` handler answers them (unless one is given); change with setRoots(). */
  roots?: Root[];
  /** How long the sidecar waits for a handler's answer, 1–3600000 ms (default 600000). */
  answerTimeoutMs?: number;
  /** Where OAuth tokens are kept (default `file`). */
  tokenStorage?: 'file' | 'memory';
  /** Defer every server's tools in listings (PROTOCOL.md §9.7). */
  defer?: boolean;
  /** Defer once the listed tools' estimated tokens exceed this budget. */
  deferAboveTokens?: number;
  /** Servers offer their resources as two tools (§15.7). */
  resourcesAsTools?: boolean;
  /** Hold changed tool definitions until acceptTools() (§16). */
  pinTools?: boolean;
  /** The session's server log level: logs at or above it reach logs() (default: none until setLogLevel). */
  serverLogs?: LogLevel;
}

export interface RequestOptions {
  /**
   * Aborting sends `notifications/cancelled` and rejects at once with `signal.reason`, as `fetch`
   * does: a DOMException `AbortError` for `abort()`, `TimeoutError` for `AbortSignal.timeout()`.
   */
  signal?: AbortSignal;
}

export interface CallToolOptions extends RequestOptions {
  /** Time the server is allowed (sidecar-side, TOOL_TIMEOUT); default: the server's toolTimeoutSeconds. */
  timeoutMs?: number;
  /** Format of the result's `output` (default: the session toolFormat). */
  format?: ToolFormat;
  /** Asks for progress: called with each update of this call (the latest when the host reads slowly), until it ends. */
  onProgress?: (progress: ProgressParams) => void;
  /** Each progress update restarts the timeout, up to maxTotalTimeoutMs. */
  resetTimeoutOnProgress?: boolean;
  /** The call's hard bound whatever its progress (TOOL_TIMEOUT). */
  maxTotalTimeoutMs?: number;
  /** The W3C trace context the call belongs to, passed on to the server (and the parent of the sidecar's span when it exports traces). */
  traceparent?: string;
  /** The W3C tracestate that goes with traceparent. */
  tracestate?: string;
}

export interface SearchToolsOptions<F extends ToolFormat | undefined = undefined> extends RequestOptions {
  /** Most entries, 1–100 (default 10). */
  limit?: number;
  servers?: string[];
  format?: F;
  strict?: boolean;
}

export interface ListPageOptions extends RequestOptions {
  /** Only this server (default: every ready one). */
  server?: string;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface FormatOptions extends RequestOptions {
  /** Format of `output` (default: the session toolFormat). */
  format?: ToolFormat;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

export interface ListToolsOptions<F extends ToolFormat | undefined = undefined> extends RequestOptions {
  format?: F;
  /** OpenAI strict mode for this listing (openai, openai-responses); default: the session's `strict`. */
  strict?: boolean;
  servers?: string[];
  /** This listing's deferral (PROTOCOL.md §9.7); default: the servers' and session's rule. */
  defer?: boolean;
}

export interface AddServerOptions extends RequestOptions {
  /** true (default): answer once ready or failed; false: answer at once (`starting`). */
  wait?: boolean;
  /** Under requireTrust: the `digest` of the TRUST_REQUIRED error for exactly this config. */
  trust?: string;
}

export interface LoadServersCommon extends RequestOptions {
  /** Forces the dialect; detected from the content (then the file name) when absent. */
  dialect?: ConfigDialect;
  /** Values of `${input:ID}`. */
  inputs?: Record<string, string>;
  /** Approved launch digests by server name (requireTrust). */
  trust?: Record<string, string>;
  /** As for addServer, for every server (default true). */
  wait?: boolean;
}
/** servers/load: exactly one of `path` (a file or directory), `json` (inline document), `text` (TOML/YAML/JSON). */
export type LoadServersOptions =
  | (LoadServersCommon & { path: string; json?: never; text?: never })
  | (LoadServersCommon & { json: Record<string, unknown>; path?: never; text?: never })
  | (LoadServersCommon & { text: string; path?: never; json?: never });

export interface TestServerOptions extends RequestOptions {
  /** Name the server is started under (default `test`); never registered. */
  name?: string;
  /** Under requireTrust: the approved launch digest. */
  trust?: string;
}

export interface ReadResultOptions extends RequestOptions {
  /** Byte offset into the full text (default 0). */
  offset?: number;
  /** Bytes wanted, 1–262144 (default and cap 262144). */
  length?: number;
}

export interface NotificationsOptions {
  /** Buffer size; when full the oldest buffered notification is dropped (default 1024). */
  bufferSize?: number;
  /** Ends the iteration when aborted. */
  signal?: AbortSignal;
}

/** Async iterator returned by `client.notifications()`. */
export interface NotificationStream extends AsyncIterableIterator<Notification> {
  /** Notifications dropped because the buffer was full. */
  readonly dropped: number;
  readonly bufferSize: number;
  return(): Promise<IteratorResult<Notification, undefined>>;
}

/** Async iterator returned by `client.logs()`: servers' log messages, bounded like NotificationStream. */
export interface LogStream extends AsyncIterableIterator<ServerLogParams> {
  /** Messages dropped (the oldest first) because the buffer was full. */
  readonly dropped: number;
  readonly bufferSize: number;
  return(): Promise<IteratorResult<ServerLogParams, undefined>>;
}

/** One line of the sidecar's own log (its stderr), not a server's (those are `logs()`). */
export interface SidecarLogRecord {
  level: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Names the cause (server, field, limit); a line that was not JSON (a panic) is kept whole here, level `error`. */
  message: string;
  /** RFC 3339, as the sidecar wrote it. */
  timestamp?: string;
  /** The module that logged, when the sidecar writes it. */
  target?: string;
  /** The event's other fields and its spans' (e.g. `server`). */
  fields: Record<string, unknown>;
}

export interface SidecarEvents {
  notification: [notification: Notification];
  /** The sidecar's own log records (`stderr: 'log'`, the default); while one is attached, none becomes a process warning. */
  log: [record: SidecarLogRecord];
  'notifications/servers/changed': [params: ServersChangedParams];
  'notifications/tools/changed': [params: ToolsChangedParams];
  'notifications/progress': [params: ProgressParams];
  'notifications/server/log': [params: ServerLogParams];
  'notifications/resources/updated': [params: ResourcesUpdatedParams];
  'notifications/resources/changed': [params: ServerListChangedParams];
  'notifications/prompts/changed': [params: ServerListChangedParams];
  'notifications/cancelled': [params: SidecarCancelledParams];
  exit: [exit: { code: number | null; signal: NodeJS.Signals | null }];
}

export declare class SidecarClient extends EventEmitter {
  /** Spawns the sidecar and performs `initialize`. */
  static start(options?: StartOptions): Promise<SidecarClient>;
  /** Internal: use `SidecarClient.start()`. */
  constructor(binary: { path: string; source: BinarySource }, options?: StartOptions);

  readonly binaryPath: string;
  readonly binarySource: BinarySource;
  readonly pid: number | undefined;
  readonly initializeResult: InitializeResult;
  readonly exitStatus: { code: number | null; signal: NodeJS.Signals | null } | null;
  readonly closed: boolean;

  addServer(name: string, config: ServerConfig, options?: AddServerOptions): Promise<ServerStatus>;
  /** servers/load: loads a config file, directory or inline document; problems are diagnostics. */
  loadServers(options: LoadServersOptions): Promise<LoadServersResult>;
  /** servers/test: starts `config`, lists its tools and stops it; nothing is registered. */
  testServer(config: ServerConfig, options?: TestServerOptions): Promise<ServerTestReport>;
  removeServer(name: string, options?: RequestOptions): Promise<Record<string, never>>;
  restartServer(name: string, options?: RequestOptions): Promise<ServerStatus>;
  listServers(options?: RequestOptions): Promise<{ servers: ServerStatus[] }>;
  /** servers/login: a remote server's OAuth login (the browser step: the `auth/authorize` handler, else `authorizationUrl`). */
  loginServer(name: string, options?: RequestOptions & { wait?: boolean }): Promise<ServerStatus>;
  /** servers/logout: forgets its tokens; status `needs_login`. */
  logoutServer(name: string, options?: RequestOptions): Promise<ServerStatus>;
  /** servers/stats: calls, errors, latency percentiles, bytes, restarts per server. */
  serverStats(options?: RequestOptions & { servers?: string[] }): Promise<ServersStatsResult>;
  /** tools/search: ranked search over the exposed tools. */
  searchTools<F extends ToolFormat | undefined = undefined>(
    query: string,
    options?: SearchToolsOptions<F>,
  ): Promise<ToolsSearchResult<F extends ToolFormat ? DefinitionByFormat[F] : ToolDefinition>>;
  /** tools/accept: returns held tools with exactly these hashes to the tool set (pinTools). */
  acceptTools(tools: Array<{ server: string; tool: string; hash: string }>, options?: RequestOptions): Promise<ToolsAcceptResult>;
  listResources(options?: ListPageOptions): Promise<ResourcesListResult>;
  listResourceTemplates(options?: ListPageOptions): Promise<ResourceTemplatesListResult>;
  readResource(server: string, uri: string, options?: FormatOptions): Promise<ResourcesReadResult>;
  subscribeResource(server: string, uri: string, options?: RequestOptions): Promise<Record<string, never>>;
  unsubscribeResource(server: string, uri: string, options?: RequestOptions): Promise<Record<string, never>>;
  listPrompts(options?: ListPageOptions): Promise<PromptsListResult>;
  getPrompt(server: string, name: string, args?: Record<string, string>, options?: FormatOptions): Promise<PromptsGetResult>;
  /** completion/complete: values for one argument of a prompt or resource template. */
  complete(
    server: string,
    ref: CompletionRef,
    argument: { name: string; value: string },
    options?: RequestOptions & { context?: { arguments?: Record<string, string> } },
  ): Promise<CompleteResult>;
  /** logging/setLevel: the level at and above which servers' logs reach logs(); every server, or `server`. */
  setLogLevel(level: LogLevel, options?: RequestOptions & { server?: string }): Promise<SetLevelResult>;
  /** The roots the built-in roots/list handler answers (null without the `roots` start option). */
  readonly roots: Root[] | null;
  /** Replaces the roots (or, without arguments, only announces a change of one's own handler): `notifications/roots/list_changed`. */
  setRoots(roots?: Root[]): void;
  listTools<F extends ToolFormat | undefined = undefined>(
    options?: ListToolsOptions<F>,
  ): Promise<ToolsListResult<F extends ToolFormat ? DefinitionByFormat[F] : ToolDefinition>>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
  /** results/read: part of a truncated result's full text (`result.truncated.handle`). */
  readResult(handle: string, options?: ReadResultOptions): Promise<ReadResultResult>;
  ping(options?: RequestOptions): Promise<Record<string, never>>;
  /** Same as close(). */
  shutdown(options?: { timeoutMs?: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** `shutdown`, wait for exit, SIGKILL after `timeoutMs`. Idempotent. Resolves to how the sidecar exited. */
  close(options?: { timeoutMs?: number }): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  [Symbol.asyncDispose](): Promise<void>;
  notifications(options?: NotificationsOptions): NotificationStream;
  /** Servers' log messages (`notifications/server/log`), bounded: the oldest dropped and counted. */
  logs(options?: NotificationsOptions): LogStream;

  on<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
  off<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  off(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Shorthand for `SidecarClient.start(options)`. */
export declare function start(options?: StartOptions): Promise<SidecarClient>;
