// langchain.js — owns the LangChain.js adapter (`mcp-sidecar/langchain`): the sidecar's tools as
// `@langchain/core` structured tools (JSON Schema arguments, `content_and_artifact` results with
// text and image content blocks, the structured content as the artifact), a tool error raised so the
// agent's tool node answers the model with a `status: 'error'` ToolMessage, the run's `signal`
// cancelling the call, progress dispatched as a LangChain custom event, and a sampling handler that
// answers a server's `sampling/createMessage` with a LangChain chat model. `@langchain/core` is an
// optional peer dependency: only this module imports it.

import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch';
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { callOptions, checkOptions, listMcpTools, samplingRequest, samplingResult } from './shared.js';

const TOOL_OPTIONS = ['servers', 'timeoutMs', 'onProgress', 'signal'];

/** The custom event each progress update of a call is dispatched as (`streamEvents`, callbacks). */
export const PROGRESS_EVENT = 'mcp_progress';

/**
 * A tool's `isError: true` result, thrown so LangChain treats the call as failed (the agent's tool
 * node turns it into a `status: 'error'` ToolMessage the model reads). `result` is the MCP result.
 */
export class McpToolError extends Error {
  constructor(toolName, result) {
    super(textOf(result.content) || `tool ${toolName} reported an error`);
    this.name = 'McpToolError';
    this.toolName = toolName;
    this.result = result;
  }
}

/**
 * The sidecar's tools (every ready server's, or `servers`') as LangChain structured tools, named
 * by their exposed names, for `createAgent({tools})`, `model.bindTools()` or a `ToolNode`. Every
 * call goes through the client's one sidecar and its long-lived server sessions.
 */
export async function langchainTools(client, options = {}) {
  checkOptions('langchainTools', options, TOOL_OPTIONS);
  const tools = await listMcpTools(client, { servers: options.servers, signal: options.signal });
  return tools.map((tool) =>
    langchainTool(
      async (input, config = {}) => {
        const toolCallId = config.toolCall?.id;
        const call = callOptions(options, { signal: config.signal, toolName: tool.name, toolCallId });
        // Progress is asked for only when someone listens: the adapter's onProgress, or callbacks
        // of the tool's run for the custom event (a bare invoke has none).
        if (config.callbacks) {
          const onProgress = call.onProgress;
          call.onProgress = (progress) => {
            onProgress?.(progress);
            dispatchCustomEvent(PROGRESS_EVENT, { ...progress, toolName: tool.name, toolCallId }, config).catch(() => {});
          };
        }
        const result = await client.callTool(tool.name, input ?? {}, call);
        if (result.isError) throw new McpToolError(tool.name, result);
        return [toolContent(result.content), result.structuredContent === undefined ? undefined : { structuredContent: result.structuredContent }];
      },
      {
        name: tool.name,
        description: tool.description,
        schema: tool.inputSchema,
        responseFormat: 'content_and_artifact',
        metadata: { server: tool.server, tool: tool.tool, ...(tool.annotations && { annotations: tool.annotations }) },
      },
    ),
  );
}

/**
 * A ToolMessage's content: a string when the result is text only, else standard content blocks
 * (`text`, and `image` with base64 `data` and `mimeType`); other blocks become their JSON as text.
 */
export function toolContent(content) {
  const blocks = content.map((block) => {
    if (block?.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
    if (block?.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') {
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    }
    return { type: 'text', text: JSON.stringify(block) };
  });
  return blocks.every((b) => b.type === 'text') ? textOf(blocks) : blocks;
}

function textOf(blocks) {
  return blocks
    .filter((b) => b?.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}

/**
 * A `sampling/createMessage` handler for `start({handlers})` that answers with a LangChain chat
 * model: the request's system prompt and messages (text and images) as LangChain messages; the
 * sidecar's withdrawal aborts the call. `maxTokens` is not passed (LangChain sets it on the model).
 */
export function langchainSamplingHandler(chatModel) {
  if (chatModel === null || typeof chatModel !== 'object' || typeof chatModel.invoke !== 'function') {
    throw new TypeError('langchainSamplingHandler: expected a LangChain chat model');
  }
  return async (params, { signal } = {}) => {
    const { messages, systemPrompt } = samplingRequest(params);
    const input = systemPrompt ? [new SystemMessage(systemPrompt)] : [];
    for (const { role, text, images } of messages) {
      if (role === 'assistant') input.push(new AIMessage(text));
      else if (images.length === 0) input.push(new HumanMessage(text));
      else input.push(new HumanMessage({ content: [{ type: 'text', text }, ...images.map((i) => ({ type: 'image', data: i.data, mimeType: i.mimeType }))] }));
    }
    const reply = await chatModel.invoke(input, { signal });
    const text = typeof reply.content === 'string' ? reply.content : textOf(reply.content);
    const model = reply.response_metadata?.model_name ?? chatModel.model ?? chatModel._llmType?.() ?? 'langchain';
    return samplingResult(text, model);
  };
}
