// openai-agents.js — owns the OpenAI Agents JS adapter (`mcp-sidecar/openai-agents`): one object
// implementing the SDK's `MCPServer` (with resources) that an `Agent({mcpServers: [...]})` takes,
// serving every server of one sidecar under provider-ready names; the run's abort signal cancels
// the call; and a sampling handler that answers a server's `sampling/createMessage` with an Agents
// `Model`. The SDK's interface is structural, so this module imports nothing from it: loading it
// never loads `@openai/agents` (an optional peer dependency).

import { callOptions, checkOptions, listMcpTools, samplingRequest, samplingResult } from './shared.js';

const SERVER_OPTIONS = [
  'name',
  'servers',
  'timeoutMs',
  'onProgress',
  'closeClient',
  'toolFilter',
  'toolMetaResolver',
  'useStructuredContent',
  'errorFunction',
];

/**
 * An `MCPServer` for `new Agent({mcpServers: [openAIAgentsServer(client)]})`. `connect()` checks
 * the sidecar answers (its servers are already running: the client's `addServer`/`loadServers`
 * started them); `close()` leaves the client to its owner unless `closeClient: true`. Tools are
 * listed from the sidecar's catalog on every `listTools()` (held in memory there, so the SDK's own
 * `cacheToolsList` is off and a changed server is seen on the next turn).
 */
export function openAIAgentsServer(client, options = {}) {
  checkOptions('openAIAgentsServer', options, SERVER_OPTIONS);
  return new SidecarMCPServer(client, options);
}

class SidecarMCPServer {
  #client;
  #options;
  #name;
  /** Resource URI → the server that listed it (the SDK reads a resource by URI alone). */
  #resourceServers = new Map();

  constructor(client, options) {
    if (client === null || typeof client !== 'object' || typeof client.callTool !== 'function') {
      throw new TypeError('openAIAgentsServer: expected a SidecarClient (from start() of mcp-sidecar)');
    }
    this.#client = client;
    this.#options = options;
    this.#name = options.name ?? 'mcp-sidecar';
    this.cacheToolsList = false;
    for (const key of ['toolFilter', 'toolMetaResolver', 'useStructuredContent', 'errorFunction']) {
      if (options[key] !== undefined) this[key] = options[key];
    }
  }

  get name() {
    return this.#name;
  }

  async connect() {
    await this.#client.ping();
  }

  async close() {
    if (this.#options.closeClient) await this.#client.close();
  }

  async listTools() {
    const tools = await listMcpTools(this.#client, { servers: this.#options.servers });
    return tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }

  async callTool(toolName, args, meta, options) {
    return (await this.callToolResult(toolName, args, meta, options)).content;
  }

  /**
   * The MCP result. Like the SDK's own servers, `isError`, `structuredContent` and `_meta` ride on
   * the content array as non-enumerable fields, so the SDK's `callTool` path sees them too; a tool
   * error reaches the model as its content (the SDK does not raise it), a sidecar error (unknown
   * tool, timeout, server down) is thrown and goes through the SDK's `errorFunction`.
   */
  async callToolResult(toolName, args, _meta, options) {
    const call = callOptions(this.#options, { signal: options?.signal, toolName });
    const result = await this.#client.callTool(toolName, args ?? {}, call);
    const content = [...result.content];
    for (const [key, value] of Object.entries({ isError: result.isError, structuredContent: result.structuredContent })) {
      if (value !== undefined) Object.defineProperty(content, key, { value, enumerable: false, configurable: true });
    }
    const full = { content, isError: result.isError };
    if (result.structuredContent !== undefined) full.structuredContent = result.structuredContent;
    return full;
  }

  async invalidateToolsCache() {
    // Nothing held here: every listTools() asks the sidecar's catalog.
  }

  async listResources(params = {}) {
    const page = await this.#client.listResources({ cursor: params.cursor });
    for (const resource of page.resources) this.#resourceServers.set(resource.uri, resource.server);
    return page;
  }

  async listResourceTemplates(params = {}) {
    return this.#client.listResourceTemplates({ cursor: params.cursor });
  }

  async readResource(uri) {
    if (!this.#resourceServers.has(uri)) await this.#listAllResources();
    const server = this.#resourceServers.get(uri);
    if (server === undefined) throw new Error(`no server of ${this.#name} lists the resource ${uri}`);
    const { contents } = await this.#client.readResource(server, uri);
    return { contents };
  }

  async #listAllResources() {
    let cursor;
    do {
      ({ nextCursor: cursor } = await this.listResources({ cursor }));
    } while (cursor);
  }
}

const STOP_REASONS = { completed: 'endTurn', incomplete: 'maxTokens' };

/**
 * A `sampling/createMessage` handler for `start({handlers})` that answers with an OpenAI Agents
 * `Model` (`getResponse`): the request's messages as input items, its system prompt as
 * instructions, `maxTokens` as the model setting; the sidecar's withdrawal aborts the request.
 */
export function openAIAgentsSamplingHandler(model, { modelName = 'openai-agents-model' } = {}) {
  if (model === null || typeof model !== 'object' || typeof model.getResponse !== 'function') {
    throw new TypeError('openAIAgentsSamplingHandler: expected an Agents Model (with getResponse)');
  }
  return async (params, { signal } = {}) => {
    const { messages, systemPrompt, maxTokens } = samplingRequest(params);
    const response = await model.getResponse({
      systemInstructions: systemPrompt,
      input: messages.map(({ role, text, images }) =>
        role === 'assistant'
          ? { type: 'message', role, status: 'completed', content: [{ type: 'output_text', text }] }
          : {
              type: 'message',
              role,
              content: [
                { type: 'input_text', text },
                ...images.map((i) => ({ type: 'input_image', image: `data:${i.mimeType};base64,${i.data}` })),
              ],
            },
      ),
      modelSettings: maxTokens === undefined ? {} : { maxTokens },
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
      signal,
    });
    const text = response.output
      .filter((item) => item.type === 'message')
      .flatMap((item) => item.content)
      .filter((part) => part.type === 'output_text')
      .map((part) => part.text)
      .join('');
    return samplingResult(text, modelName, STOP_REASONS[response.providerData?.status] ?? 'endTurn');
  };
}
