// index.d.ts — hand-written TypeScript definitions of the public API (src/index.js) and of the
// host protocol v1 shapes (proto/PROTOCOL.md, proto/schema/). Results are typed with the fields
// the protocol guarantees; unknown future fields are allowed (§14: additive changes).

import { EventEmitter } from 'node:events';

// ---------------------------------------------------------------- protocol shapes

export type ToolFormat = 'openai' | 'openai-responses' | 'anthropic' | 'mcp';

export type ServerState = 'stopped' | 'starting' | 'ready' | 'unhealthy' | 'error';

/** `config` of servers/add (PROTOCOL.md §7). snake_case spellings are accepted by the sidecar too. */
export interface ServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  inheritEnv?: string[];
  startupTimeoutSeconds?: number;
  toolTimeoutSeconds?: number;
  maxMessageBytes?: number;
  maxResultBytes?: number;
  transport?: 'stdio';
  type?: 'stdio';
}

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
  pid?: number;
  protocolVersion?: string;
  serverInfo?: { name: string; version?: string; [key: string]: unknown };
  instructions?: string;
  toolsCount: number;
  startedAt?: string;
  lastExit?: ExitInfo;
  lastError?: RpcErrorObject;
  stderrTail: string;
  [key: string]: unknown;
}

export type JsonSchemaObject = { type?: 'object'; properties?: Record<string, unknown>; [key: string]: unknown };

export interface OpenAIDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchemaObject };
}
export interface OpenAIResponsesDefinition {
  type: 'function';
  name: string;
  description?: string;
  parameters: JsonSchemaObject;
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
export interface CallToolResult {
  isError: boolean;
  content: ContentBlock[];
  structuredContent?: unknown;
  text: string;
  /** openai/openai-responses: string; anthropic: content blocks; mcp: the raw CallToolResult. */
  output: string | AnthropicToolResultBlock[] | Record<string, unknown>;
  server: string;
  tool: string;
  durationMs: number;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: 1;
  serverInfo: { name: string; version: string };
  capabilities: { toolFormats: ToolFormat[]; transports: string[]; cancellation: boolean; [key: string]: unknown };
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
  | 'SERVER_EXISTS' | 'SERVER_NOT_FOUND' | 'SERVER_UNAVAILABLE' | 'TOOL_NOT_FOUND'
  | 'INVALID_ARGUMENTS' | 'TOOL_TIMEOUT' | 'RESULT_TOO_LARGE' | 'PROTOCOL_ERROR'
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
  /** Exposed-name template (default `mcp__{server}__{tool}`). */
  nameTemplate?: string;
  /** Longest exposed name, 16–256 (default 64). */
  maxNameLength?: number;
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
}

export interface ListToolsOptions<F extends ToolFormat | undefined = undefined> extends RequestOptions {
  format?: F;
  servers?: string[];
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

  addServer(name: string, config: ServerConfig, options?: RequestOptions & { wait?: boolean }): Promise<ServerStatus>;
  removeServer(name: string, options?: RequestOptions): Promise<Record<string, never>>;
  restartServer(name: string, options?: RequestOptions): Promise<ServerStatus>;
  listServers(options?: RequestOptions): Promise<{ servers: ServerStatus[] }>;
  listTools<F extends ToolFormat | undefined = undefined>(
    options?: ListToolsOptions<F>,
  ): Promise<ToolsListResult<F extends ToolFormat ? DefinitionByFormat[F] : ToolDefinition>>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult>;
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
