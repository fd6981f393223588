// ai-sdk.d.ts — types of `mcp-sidecar/ai-sdk` (ai-sdk.js): the sidecar's tools as an AI SDK
// `ToolSet`, their model output, and a sampling handler backed by an AI SDK model.

import type { LanguageModel, ToolSet } from 'ai';
import type { SidecarClient } from '../../index.js';
import type { AdapterOptions, SamplingHandler } from './shared.js';

export type { AdapterOptions, AdapterProgress, SamplingHandler } from './shared.js';

export interface AiSdkToolsOptions extends AdapterOptions {
  /** Cancels the listing. */
  signal?: AbortSignal;
}

/** What each tool's `execute` returns: the MCP result's own fields. */
export interface SidecarToolOutput {
  content: Array<Record<string, unknown>>;
  isError: boolean;
  structuredContent?: unknown;
}

/** The sidecar's tools as a `tools` record for `generateText`/`streamText`, keyed by exposed name. */
export function aiSdkTools(client: SidecarClient, options?: AiSdkToolsOptions): Promise<ToolSet>;

/** The model-facing output of a tool result (`text`, `content` with `image-data`, `json`, `error-text`). */
export function modelOutput(output: SidecarToolOutput): unknown;

/** Answers a server's `sampling/createMessage` with `model` through `generateText`. */
export function aiSdkSamplingHandler(model: LanguageModel): SamplingHandler;
