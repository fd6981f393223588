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

export type Notification =
  | { method: 'notifications/servers/changed'; params: ServersChangedParams }
  | { method: 'notifications/tools/changed'; params: ToolsChangedParams }
  | { method: string; params: Record<string, unknown> };

// ---------------------------------------------------------------- errors

export type ClientErrorCode =
  | 'BINARY_NOT_FOUND' | 'SPAWN_FAILED' | 'SIDECAR_EXITED' | 'CLOSED' | 'LINE_TOO_LONG' | 'INVALID_OUTPUT';

/** A stable code; unknown future protocol codes arrive as plain strings. */
export type ErrorCode = ProtocolErrorCode | ClientErrorCode | (string & {});

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
