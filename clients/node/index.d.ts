// index.d.ts — hand-written TypeScript definitions of the public API (src/index.js) and of the
// host protocol v1 shapes (proto/PROTOCOL.md, proto/schema/). Results are typed with the fields
// the protocol guarantees; unknown future fields are allowed (§14: additive changes).

import { EventEmitter } from 'node:events';

// ---------------------------------------------------------------- protocol shapes

export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp';

export type ServerState = 'stopped' | 'starting' | 'ready' | 'unhealthy' | 'error';

export type Transport = 'stdio' | 'http' | 'sse';
export type ServerSource = 'user' | 'host' | 'plugin';
export type ConfigDialect =
  | 'claude-desktop' | 'claude-code' | 'claude-plugin' | 'vscode' | 'cursor' | 'codex' | 'epoch' | 'plugin-manifest';

/** Fields of every server config (PROTOCOL.md §7, Appendix). snake_case spellings are accepted by the sidecar too. */
export interface ServerConfigBase {
  startupTimeoutSeconds?: number;
  toolTimeoutSeconds?: number;
  maxMessageBytes?: number;
  maxResultBytes?: number;
  /** A result over maxResultBytes: `error` (RESULT_TOO_LARGE, default) or `truncate` (cut; rest via readResult). */
  resultPolicy?: 'error' | 'truncate';
  restart?: 'on-failure' | 'never';
  restartBackoffMs?: number;
  keepaliveSeconds?: number;
  idleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
  autoStart?: boolean;
  includeTools?: string[];
  excludeTools?: string[];
  expectTools?: string[];
  permissions?: string[];
  permissionMetaKey?: string;
  secretEnv?: string[];
  secretHeaders?: string[];
}

/** A spawned (stdio) server. */
export interface StdioServerConfig extends ServerConfigBase {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  inheritEnv?: string[];
  transport?: 'stdio';
  type?: 'stdio';
  url?: never;
}

/** A remote server (Streamable HTTP, or legacy HTTP+SSE). */
export interface RemoteServerConfig extends ServerConfigBase {
  url: string;
  headers?: Record<string, string | { value: string; secret?: boolean }>;
  transport?: 'http' | 'sse' | 'streamable-http' | 'streamableHttp' | 'streamable_http';
  type?: 'http' | 'sse' | 'streamable-http' | 'streamableHttp' | 'streamable_http';
  command?: never;
}

/** `config` of servers/add and servers/test (PROTOCOL.md §7). */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export interface ExitInfo {
  code: number | null;
  signal: number | null;
}

/** A JSON-RPC error object as carried in `lastError` (PROTOCOL.md §12). */
export interface RpcErrorObject {
  code: number;
  message: string;
  data: ErrorData;
}

/** `error.data`: always `code`; the other fields depend on the code (PROTOCOL.md §12). */
export interface ErrorData {
  code?: ErrorCode;
  name?: string;
  server?: string;
  tool?: string;
  field?: string;
  method?: string;
  setting?: string;
  limit?: number;
  size?: number;
  violations?: Array<{ path: string; message: string }>;
  upstreamCode?: number;
  upstreamData?: unknown;
  supported?: unknown[];
  protocolVersion?: string;
  command?: string;
  exit?: ExitInfo | { code: number | null; signal: string | null };
  stderrTail?: string;
  state?: string;
  crashLoop?: true;
  failures?: number;
  /** RESULT_EXPIRED: the handle that is gone. */
  handle?: string;
  /** TRUST_REQUIRED: what the host is asked to approve (see TrustRequest). */
  digest?: string;
  commandLine?: string;
  args?: string[];
  cwd?: string | null;
  envNames?: string[];
  url?: string;
  headerNames?: string[];
  source?: ServerSource;
  warnings?: string[];
  /** Client codes: BINARY_NOT_FOUND lists every place looked at. */
  searched?: Array<{ source: string; place: string; path: string | null; reason: string }>;
  [key: string]: unknown;
}

/** Server status (PROTOCOL.md §8.1). */
export interface ServerStatus {
  name: string;
  state: ServerState;
  generation: number;
  command: string;
  /** How the server arrived: servers/load or --config (`user`), servers/add (`host`), a plugin. */
  source: ServerSource;
  transport: Transport;
  /** Remote servers: the URL (never with credentials). */
  url?: string;
  /** Remote servers: names of the configured headers (values are never shown). */
  headers?: string[];
  pid?: number;
  protocolVersion?: string;
  serverInfo?: { name: string; version?: string; [key: string]: unknown };
  instructions?: string;
  toolsCount: number;
  startedAt?: string;
  lastExit?: ExitInfo;
  lastError?: RpcErrorObject;
  stderrTail: string;
  /** Automatic restarts over the server's life. */
  restarts: number;
  /** RFC 3339: when a scheduled automatic restart is due (`unhealthy`). */
  nextRestartAt?: string;
  /** tools/call requests routed to the server, and those answered with an error. */
  calls: number;
  errors: number;
  /** Median latency of recent successful calls; absent before the first one. */
  p50LatencyMs?: number;
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

/** One element of tools/list `tools` (PROTOCOL.md §9.2). */
export interface ToolEntry<D = ToolDefinition> {
  name: string;
  server: string;
  tool: string;
  title?: string;
  annotations?: Record<string, unknown>;
  readOnly: boolean;
  /** From `_meta[permissionMetaKey]` when the server config names one. */
  permission?: string;
  definition: D;
  /** What the schema conversion changed; `[]` when nothing (always for mcp). Not in the fingerprint. */
  conversionNotes: ConversionNote[];
  [key: string]: unknown;
}

export interface ConversionNote {
  action: 'dropped' | 'rewritten' | 'inlined' | 'merged' | 'widened' | 'narrowed' | 'cut' | 'strict-fallback';
  /** JSON Pointer into the converted schema; `""` is the top level. */
  path: string;
  reason: string;
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
export interface CallToolResult {
  isError: boolean;
  content: ContentBlock[];
  structuredContent?: unknown;
  text: string;
  /**
   * openai: string; openai-responses: string or input_text/input_image parts; anthropic: content
   * blocks; gemini: `{response: {output|error}, parts?}`; mcp: the raw CallToolResult.
   */
  output: string | AnthropicToolResultBlock[] | Array<Record<string, unknown>> | Record<string, unknown>;
  server: string;
  tool: string;
  durationMs: number;
  /** Only when the result was over maxResultBytes and cut (resultPolicy `truncate`, PROTOCOL.md §10.1). */
  truncated?: TruncatedInfo;
  [key: string]: unknown;
}

export interface TruncatedInfo {
  /** Bytes of the server's whole response line. */
  originalBytes: number;
  /** For readResult(); absent when no text was cut or the full text was too large to keep. */
  handle?: string;
  /** Byte offset and length of the cut part of the full text. */
  offset?: number;
  length?: number;
  totalBytes?: number;
}

/** results/read result (PROTOCOL.md §4 results/read). Offsets and lengths are UTF-8 bytes. */
export interface ReadResultResult {
  text: string;
  offset: number;
  length: number;
  totalBytes: number;
  /** `offset + length === totalBytes`. */
  eof: boolean;
  [key: string]: unknown;
}

/** A problem found by servers/load (never an error response). */
export interface LoadDiagnostic {
  /** error: the server (or, without `server`, the whole file) was not loaded; warning: loaded anyway. */
  severity: 'error' | 'warning';
  kind:
    | 'unreadable' | 'syntax' | 'unknown-dialect' | 'wrong-type' | 'missing-field' | 'unknown-field'
    | 'ignored' | 'unresolved-variable' | 'command-not-found' | 'path-escape' | 'unsupported' | 'invalid'
    | 'duplicate' | (string & {});
  file?: string;
  /** JSON path of the field (`mcpServers.github.args[1]`); `""` for the whole file. */
  path: string;
  server?: string;
  message: string;
  line?: number;
  column?: number;
}

/** The `data` of a TRUST_REQUIRED error (plus `name` in servers/load `trustRequired`). */
export interface TrustRequest {
  server: string;
  /** `sha256:<64 hex>`: pass it back as `trust` to approve exactly this launch. */
  digest: string;
  commandLine: string;
  command: string;
  args: string[];
  cwd: string | null;
  envNames: string[];
  url?: string;
  headerNames?: string[];
  source: ServerSource;
  warnings: string[];
  [key: string]: unknown;
}

export interface LoadServersResult {
  /** Status of every server added (a failed start is `state: 'error'`, as for addServer). */
  added: ServerStatus[];
  diagnostics: LoadDiagnostic[];
  /** Servers held back by requireTrust: load again with `trust: {[name]: digest}`. */
  trustRequired: Array<TrustRequest & { name: string }>;
  [key: string]: unknown;
}

/** servers/test result: what one start of the config found; nothing was registered. */
export interface ServerTestReport {
  state: 'ready' | 'error';
  transport: Transport;
  serverInfo?: { name: string; version?: string; [key: string]: unknown };
  protocolVersion?: string;
  instructions?: string;
  /** The tools' names on the server (after includeTools/excludeTools), listing order. */
  tools: string[];
  toolsCount: number;
  timings: { startupMs: number; listMs?: number };
  stderrTail: string;
  /** The process tested (stdio, ready); it has exited by the time of the answer. */
  pid?: number;
  /** Why the start failed (`state: 'error'`). */
  error?: RpcErrorObject;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: 1;
  serverInfo: { name: string; version: string };
  capabilities: {
    toolFormats: ToolFormat[];
    transports: string[];
    cancellation: boolean;
    strict?: boolean;
    resultPolicies?: Array<'error' | 'truncate'>;
    resultsRead?: boolean;
    configDialects?: ConfigDialect[];
    trust?: boolean;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface ServersChangedParams {
  status: ServerStatus;
}
export interface ToolsChangedParams {
  fingerprint: string;
  added: string[];
  removed: string[];
}

export type Notification =
  | { method: 'notifications/servers/changed'; params: ServersChangedParams }
  | { method: 'notifications/tools/changed'; params: ToolsChangedParams }
  | { method: string; params: Record<string, unknown> };

// ---------------------------------------------------------------- errors

export type ProtocolErrorCode =
  | 'PARSE_ERROR' | 'INVALID_REQUEST' | 'METHOD_NOT_FOUND' | 'INVALID_PARAMS' | 'INTERNAL'
  | 'MESSAGE_TOO_LARGE' | 'NOT_INITIALIZED' | 'ALREADY_INITIALIZED' | 'CONFIG_INVALID'
  | 'SERVER_EXISTS' | 'SERVER_NOT_FOUND' | 'SERVER_UNAVAILABLE' | 'TRUST_REQUIRED' | 'TOOL_NOT_FOUND'
  | 'INVALID_ARGUMENTS' | 'TOOL_TIMEOUT' | 'RESULT_TOO_LARGE' | 'RESULT_EXPIRED' | 'PROTOCOL_ERROR'
  | 'VERSION_UNSUPPORTED' | 'UPSTREAM_ERROR' | 'SHUTTING_DOWN' | 'CANCELLED';

export type ClientErrorCode =
  | 'BINARY_NOT_FOUND' | 'SPAWN_FAILED' | 'SIDECAR_EXITED' | 'CLOSED' | 'LINE_TOO_LONG' | 'INVALID_OUTPUT';

/** A stable code; unknown future protocol codes arrive as plain strings. */
export type ErrorCode = ProtocolErrorCode | ClientErrorCode | (string & {});

export declare const RPC_CODES: Readonly<Record<ProtocolErrorCode, number>>;
export declare const CLIENT_CODES: readonly ClientErrorCode[];

/** The only error type this package throws or rejects with. */
export declare class SidecarError extends Error {
  constructor(code: ErrorCode, message: string, options?: { data?: ErrorData; rpcCode?: number; cause?: unknown });
  readonly name: 'SidecarError';
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
  /** Where the sidecar's stderr (logs) goes: inherited (default), dropped, or one call per line. */
  stderr?: 'inherit' | 'ignore' | ((line: string) => void);
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
  /** Default buffer of each notifications() iterator (default 1024). */
  notificationBufferSize?: number;
}

export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects at once with SidecarError code CANCELLED. */
  signal?: AbortSignal;
}

export interface CallToolOptions extends RequestOptions {
  /** Time the server is allowed (sidecar-side, TOOL_TIMEOUT); default: the server's toolTimeoutSeconds. */
  timeoutMs?: number;
  /** Format of the result's `output` (default: the session toolFormat). */
  format?: ToolFormat;
}

export interface ListToolsOptions<F extends ToolFormat | undefined = undefined> extends RequestOptions {
  format?: F;
  /** OpenAI strict mode for this listing (openai, openai-responses); default: the session's `strict`. */
  strict?: boolean;
  servers?: string[];
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

export interface SidecarEvents {
  notification: [notification: Notification];
  'notifications/servers/changed': [params: ServersChangedParams];
  'notifications/tools/changed': [params: ToolsChangedParams];
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

  on<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
  off<K extends keyof SidecarEvents>(event: K, listener: (...args: SidecarEvents[K]) => void): this;
  off(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Shorthand for `SidecarClient.start(options)`. */
export declare function start(options?: StartOptions): Promise<SidecarClient>;
