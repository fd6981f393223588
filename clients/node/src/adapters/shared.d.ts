// shared.d.ts — types shared by the framework adapters' definitions (ai-sdk.d.ts,
// openai-agents.d.ts, langchain.d.ts): the options every adapter takes and the progress it reports.

import type { HandlerContext, ProgressParams, SamplingParams, SamplingResult } from '../../index.js';

/** Progress of one call, with the tool and (where the framework has one) the call's id. */
export interface AdapterProgress extends ProgressParams {
  toolName: string;
  toolCallId?: string;
}

/** Options of every adapter. */
export interface AdapterOptions {
  /** Only these servers' tools (default: every ready server's). */
  servers?: string[];
  /** Time each call is allowed, enforced by the sidecar (TOOL_TIMEOUT); default: the server's. */
  timeoutMs?: number;
  /** Asks servers for progress and passes each update here. */
  onProgress?: (progress: AdapterProgress) => void;
}

/** A `sampling/createMessage` handler for `start({handlers: {'sampling/createMessage': …}})`. */
export type SamplingHandler = (params: SamplingParams, context: HandlerContext) => Promise<SamplingResult>;
