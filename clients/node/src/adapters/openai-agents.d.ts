// openai-agents.d.ts — types of `mcp-sidecar/openai-agents` (openai-agents.js): the sidecar as an
// OpenAI Agents `MCPServer` (with resources), and a sampling handler backed by an Agents `Model`.

import type { MCPServerWithResources, Model } from '@openai/agents';
import type { SidecarClient } from '../../index.js';
import type { AdapterOptions, SamplingHandler } from './shared.js';

export type { AdapterOptions, AdapterProgress, SamplingHandler } from './shared.js';

export interface OpenAIAgentsServerOptions extends AdapterOptions {
  /** The server's name in the SDK (traces, `mcpConfig` prefixes); default `mcp-sidecar`. */
  name?: string;
  /** `close()` also closes the client (default: the client is left to its owner). */
  closeClient?: boolean;
  toolFilter?: MCPServerWithResources['toolFilter'];
  toolMetaResolver?: MCPServerWithResources['toolMetaResolver'];
  useStructuredContent?: boolean;
  errorFunction?: MCPServerWithResources['errorFunction'];
}

/** An `MCPServer` for `new Agent({mcpServers: [...]})`, serving every server of the sidecar. */
export function openAIAgentsServer(client: SidecarClient, options?: OpenAIAgentsServerOptions): MCPServerWithResources;

/** Answers a server's `sampling/createMessage` with an Agents `Model` (`getResponse`). */
export function openAIAgentsSamplingHandler(model: Model, options?: { modelName?: string }): SamplingHandler;
