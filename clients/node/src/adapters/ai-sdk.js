// ai-sdk.js — owns the Vercel AI SDK adapter (`mcp-sidecar/ai-sdk`): the sidecar's tools as an AI
// SDK `tools` record of `dynamicTool`s for `generateText`/`streamText`, their results as the SDK's
// tool-result output (text, images as `image-data`, `isError` as `error-text`), the run's
// `abortSignal` cancelling the call, and a sampling handler that answers a server's
// `sampling/createMessage` with an AI SDK model. `ai` is an optional peer dependency: only this
// module imports it, so the core client never loads it.

import { dynamicTool, generateText, jsonSchema } from 'ai';
import { callOptions, checkOptions, listMcpTools, samplingRequest, samplingResult } from './shared.js';

const TOOL_OPTIONS = ['servers', 'timeoutMs', 'onProgress', 'signal'];

/**
 * The sidecar's tools (every ready server's, or `servers`') as an AI SDK `ToolSet`, keyed by the
 * exposed name. Each `execute` is one `tools/call` through the client, so all calls share the
 * client's one sidecar and its long-lived server sessions. List again after
 * `notifications/tools/changed`.
 */
export async function aiSdkTools(client, options = {}) {
  checkOptions('aiSdkTools', options, TOOL_OPTIONS);
  const tools = await listMcpTools(client, { servers: options.servers, signal: options.signal });
  const set = {};
  for (const tool of tools) {
    set[tool.name] = dynamicTool({
      description: tool.description,
      ...(tool.title !== undefined && { title: tool.title }),
      inputSchema: jsonSchema(tool.inputSchema),
      execute: async (input, { abortSignal, toolCallId } = {}) => {
        const call = callOptions(options, { signal: abortSignal, toolName: tool.name, toolCallId });
        const result = await client.callTool(tool.name, input ?? {}, call);
        return toolOutput(result);
      },
      toModelOutput: ({ output }) => modelOutput(output),
    });
  }
  return set;
}

/** What `execute` returns (the tool-result part's `output`): the MCP result's own fields. */
function toolOutput(result) {
  const output = { content: result.content, isError: result.isError };
  if (result.structuredContent !== undefined) output.structuredContent = result.structuredContent;
  return output;
}

/**
 * The output the model sees: a tool error as `error-text` (the SDK's own error result, so the model
 * knows the call failed while the run goes on), text alone as `text`, text with images as `content`
 * parts (`image-data`), no content but structured content as `json`. Other blocks (audio,
 * resources) become their JSON as text, as the SDK's own MCP client does.
 */
export function modelOutput(output) {
  const blocks = Array.isArray(output?.content) ? output.content : [];
  const parts = blocks.map((block) => {
    if (block?.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
    if (block?.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') {
      return { type: 'image-data', data: block.data, mediaType: block.mimeType };
    }
    return { type: 'text', text: JSON.stringify(block) };
  });
  const text = () => parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n');
  if (output?.isError) return { type: 'error-text', value: text() };
  if (parts.length === 0 && output?.structuredContent !== undefined) return { type: 'json', value: output.structuredContent };
  if (parts.every((p) => p.type === 'text')) return { type: 'text', value: text() };
  return { type: 'content', value: parts };
}

const STOP_REASONS = { stop: 'endTurn', length: 'maxTokens', 'tool-calls': 'toolUse' };

/**
 * A `sampling/createMessage` handler for `start({handlers})` that answers with `model` (any AI SDK
 * language model) through `generateText`: the request's messages (text and images), system prompt
 * and `maxTokens`; the sidecar's withdrawal aborts the generation.
 */
export function aiSdkSamplingHandler(model) {
  if (model === null || typeof model !== 'object') throw new TypeError('aiSdkSamplingHandler: expected an AI SDK language model');
  return async (params, { signal } = {}) => {
    const { messages, systemPrompt, maxTokens } = samplingRequest(params);
    const result = await generateText({
      model,
      ...(systemPrompt !== undefined && { system: systemPrompt }),
      messages: messages.map(({ role, text, images }) =>
        role === 'assistant'
          ? { role, content: text }
          : { role, content: [{ type: 'text', text }, ...images.map((i) => ({ type: 'image', image: i.data, mediaType: i.mimeType }))] },
      ),
      ...(maxTokens !== undefined && { maxOutputTokens: maxTokens }),
      ...(signal && { abortSignal: signal }),
    });
    const modelId = result.response?.modelId ?? model.modelId ?? 'unknown';
    return samplingResult(result.text, modelId, STOP_REASONS[result.finishReason] ?? result.finishReason);
  };
}
