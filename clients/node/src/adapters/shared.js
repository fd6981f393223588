// shared.js — owns what every framework adapter (ai-sdk.js, openai-agents.js, langchain.js) takes
// from the core client: the sidecar's tools as MCP tool objects under their exposed names, the
// options of one call (timeout, cancellation, progress), and the sampling request read as plain
// text for a framework's model. It imports no framework, so it costs nothing to load.

/**
 * The sidecar's tools as `{name, server, tool, title?, description?, inputSchema, annotations?}`,
 * `name` being the exposed, provider-ready name (`mcp__{server}__{tool}`). The listing is asked in
 * the `mcp` format: the server's own schema, unconverted, which every framework here takes as JSON
 * Schema.
 */
export async function listMcpTools(client, { servers, signal } = {}) {
  requireClient(client);
  const { tools } = await client.listTools({ format: 'mcp', servers, signal });
  return tools.map((entry) => {
    const definition = entry.definition ?? {};
    const tool = {
      name: entry.name,
      server: entry.server,
      tool: entry.tool,
      description: definition.description ?? entry.title ?? '',
      inputSchema: objectSchema(definition.inputSchema),
    };
    if (entry.title !== undefined) tool.title = entry.title;
    if (entry.annotations !== undefined) tool.annotations = entry.annotations;
    return tool;
  });
}

/**
 * A tool's input schema as a JSON Schema object with `properties`: a server may omit them (a tool
 * without arguments), and the frameworks' schema validators and providers reject an object schema
 * without them.
 */
export function objectSchema(schema) {
  const base = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? schema : {};
  return { ...base, type: 'object', properties: base.properties ?? {} };
}

/**
 * The `callTool` options of one framework call: the adapter's `timeoutMs`, the framework's abort
 * signal, and progress passed to the adapter's `onProgress` with the call it belongs to.
 */
export function callOptions(options, { signal, toolName, toolCallId } = {}) {
  const call = {};
  if (options.timeoutMs !== undefined) call.timeoutMs = options.timeoutMs;
  if (signal) call.signal = signal;
  const { onProgress } = options;
  if (onProgress !== undefined) {
    if (typeof onProgress !== 'function') throw new TypeError('onProgress must be a function');
    call.onProgress = (progress) => onProgress({ ...progress, toolName, toolCallId });
  }
  return call;
}

/** The adapters' options are checked up front, like `start()`'s: an unknown one is a TypeError. */
export function checkOptions(what, options, known) {
  if (options === null || typeof options !== 'object') throw new TypeError(`${what}: options must be an object`);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`${what}: unknown option ${key} (known: ${known.join(', ')})`);
  }
}

function requireClient(client) {
  if (client === null || typeof client !== 'object' || typeof client.listTools !== 'function') {
    throw new TypeError('expected a SidecarClient (from start() of mcp-sidecar)');
  }
}

/**
 * A `sampling/createMessage` request's messages as `{role, text, images}` (MCP content may be one
 * block or an array; images are `{data, mimeType}`), plus its system prompt and token limit, for a
 * handler that asks the agent's own model.
 */
export function samplingRequest(params) {
  const messages = (params.messages ?? []).map((message) => {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
      .join('\n');
    const images = blocks
      .filter((b) => b?.type === 'image' && typeof b.data === 'string')
      .map((b) => ({ data: b.data, mimeType: b.mimeType ?? 'application/octet-stream' }));
    return { role: message.role === 'assistant' ? 'assistant' : 'user', text, images };
  });
  return { messages, systemPrompt: params.systemPrompt, maxTokens: params.maxTokens };
}

/** The answer to `sampling/createMessage` from a model's text reply. */
export function samplingResult(text, model, stopReason = 'endTurn') {
  return { role: 'assistant', content: { type: 'text', text }, model, stopReason };
}
