// langchain.d.ts — types of `mcp-sidecar/langchain` (langchain.js): the sidecar's tools as
// LangChain structured tools, the error a tool's `isError` result raises, and a sampling handler
// backed by a LangChain chat model.

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { CallToolResult, SidecarClient } from '../../index.js';
import type { AdapterOptions, SamplingHandler } from './shared.js';

export type { AdapterOptions, AdapterProgress, SamplingHandler } from './shared.js';

export interface LangchainToolsOptions extends AdapterOptions {
  /** Cancels the listing. */
  signal?: AbortSignal;
}

/** The custom event name of progress updates (`streamEvents`, `handleCustomEvent`). */
export const PROGRESS_EVENT: 'mcp_progress';

/** Raised by a tool whose result has `isError: true`; the agent's tool node reports it to the model. */
export class McpToolError extends Error {
  readonly toolName: string;
  readonly result: CallToolResult;
}

/** The sidecar's tools for `createAgent({tools})`, `bindTools()` or a `ToolNode`. */
export function langchainTools(client: SidecarClient, options?: LangchainToolsOptions): Promise<DynamicStructuredTool[]>;

/** A ToolMessage content from MCP content blocks (a string for text only, else standard blocks). */
export function toolContent(content: Array<Record<string, unknown>>): string | Array<Record<string, unknown>>;

/** Answers a server's `sampling/createMessage` with a LangChain chat model. */
export function langchainSamplingHandler(chatModel: BaseChatModel): SamplingHandler;
