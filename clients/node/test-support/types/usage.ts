// usage.ts — compiled (never run) by test/types.test.mjs: exercises the public API the way a
// TypeScript user would, so index.d.ts stays in step with it. Lines marked @ts-expect-error
// must stay errors.

import {
  SidecarClient, SidecarError, findBinary, start, type AnthropicDefinition, type CallToolResult,
  type Notification, type OpenAIDefinition, type ServerStatus, type ToolsListResult, type GeminiDefinition,
  type LoadServersResult, type ServerTestReport, type ReadResultResult, HandlerError, type SamplingParams,
  type ResourcesListResult, type ServersStatsResult, type ProgressParams, type ServerLogParams,
  type SidecarLogRecord,
} from 'mcp-sidecar';

export async function sidecarLogs(): Promise<string[]> {
  const seen: string[] = [];
  const client = await start({ logLevel: 'info', onLog: (r: SidecarLogRecord) => seen.push(`${r.level} ${r.message}`) });
  client.on('log', (r) => void (r.fields.server ?? r.timestamp));
  await start({ stderr: 'log', logLevel: 'mcp_sidecar=debug' });
  // @ts-expect-error a level is one of five
  const bad: SidecarLogRecord['level'] = 'warning';
  try {
    await start({ startTimeoutMs: 100 });
  } catch (err) {
    if (err instanceof SidecarError && err.name === 'TimeoutError') seen.push(err.code);
  }
  return [...seen, bad];
}

export async function newer(client: SidecarClient): Promise<number> {
  const strict = await start({ toolFormat: 'gemini', strict: true, requireTrust: true });
  await start({ startTimeoutMs: 5000, signal: AbortSignal.timeout(10_000) });
  await strict.close();
  const loaded: LoadServersResult = await client.loadServers({ json: { mcpServers: {} }, dialect: 'claude-desktop', wait: true });
  await client.loadServers({ path: '/etc/mcp.json', trust: { fx: 'sha256:00' }, inputs: { token: 'x' } });
  await client.loadServers({ text: 'x = 1' });
  // @ts-expect-error exactly one of path, json, text
  await client.loadServers({ path: '/a', text: 'x = 1' });
  // @ts-expect-error one of path, json, text is required
  await client.loadServers({ dialect: 'vscode' });
  const digest = loaded.trustRequired[0]?.digest ?? '';
  const report: ServerTestReport = await client.testServer({ command: 'mcp-fixture' }, { name: 'fx', trust: digest });
  await client.testServer({ url: 'https://example.com/mcp', headers: { Authorization: { value: 'x', secret: true } } });
  await client.addServer('fx', { command: 'mcp-fixture', resultPolicy: 'truncate', maxResultBytes: 4096 }, { trust: digest });
  const gemini = await client.listTools({ format: 'gemini', strict: false });
  const decl: GeminiDefinition = gemini.tools[0].definition;
  const notes = gemini.tools[0].conversionNotes.map((n) => n.action);
  const result = await client.callTool('mcp__fx__large', { bytes: 20000 }, { format: 'mcp' });
  const handle = result.truncated?.handle;
  const rest: ReadResultResult | undefined = handle === undefined ? undefined : await client.readResult(handle, { offset: result.truncated?.offset, length: 1024 });
  const status: ServerStatus = loaded.added[0];
  const diag = loaded.diagnostics[0];
  return report.toolsCount + (rest?.totalBytes ?? 0) + decl.name.length + notes.length + status.restarts + status.calls
    + status.errors + (status.p50LatencyMs ?? 0) + status.transport.length + status.source.length + (diag?.path.length ?? 0);
}

export async function example(): Promise<string> {
  const client: SidecarClient = await start({ toolFormat: 'anthropic', stderr: (line: string) => void line });
  const status: ServerStatus = await client.addServer('fx', { command: 'mcp-fixture', args: [] }, { wait: true });
  const state: 'stopped' | 'starting' | 'ready' | 'unhealthy' | 'error' | 'needs_login' = status.state;
  const openai = await client.listTools({ format: 'openai' });
  const fn: OpenAIDefinition = openai.tools[0].definition;
  const anthropic: ToolsListResult<AnthropicDefinition> = await client.listTools({ format: 'anthropic', servers: ['fx'] });
  const any = await client.listTools();
  const controller = new AbortController();
  const result: CallToolResult = await client.callTool('mcp__fx__echo', { message: 'hi' }, { timeoutMs: 1000, signal: controller.signal });
  client.on('notifications/servers/changed', ({ status: s }) => void s.generation);
  client.on('notifications/tools/changed', (p) => void p.fingerprint.length);
  client.on('notification', (n: Notification) => void n.method);
  for await (const n of client.notifications({ bufferSize: 16 })) {
    if (n.method === 'notifications/tools/changed') break;
  }
  try {
    await client.removeServer('fx');
  } catch (err) {
    if (err instanceof SidecarError && err.code === 'SERVER_NOT_FOUND') void err.data.server;
    if (err instanceof SidecarError) void (err.rpcCode ?? 0);
  }
  const { path, source } = findBinary({ binaryPath: '/x' });
  const exit = await client.close();
  await client[Symbol.asyncDispose]();
  // @ts-expect-error toolFormat is a closed set
  await SidecarClient.start({ toolFormat: 'claude' });
  // @ts-expect-error callTool arguments are an object
  await client.callTool('x', 'not an object');
  // @ts-expect-error servers/add needs a command
  await client.addServer('x', { args: [] });
  return [state, fn.function.name, anthropic.tools[0]?.definition.input_schema.type, any.fingerprint,
    result.text, path, source, String(exit.code)].join();
}

export async function wholeProtocol(): Promise<number> {
  const client = await start({
    serverLogs: 'warning',
    roots: [{ uri: 'file:///work', name: 'work' }],
    capabilities: { elicitation: { form: {}, url: {} } },
    handlers: {
      'sampling/createMessage': async (params: SamplingParams, { signal }) => {
        signal.throwIfAborted();
        if (params.maxTokens < 1) throw new HandlerError(-1, 'rejected by the user');
        return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: `m-${params.server}` };
      },
      'elicitation/create': (params) =>
        params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: { name: params.message } },
      'auth/authorize': ({ url }) => ({ action: url.startsWith('https:') ? 'opened' : 'declined' }),
    },
  });
  // @ts-expect-error a handler answers the method's result shape
  await start({ handlers: { 'elicitation/create': () => ({ action: 'maybe' }) } });
  // @ts-expect-error no such request comes from the sidecar
  await start({ handlers: { 'tools/list': () => ({}) } });
  const resources: ResourcesListResult = await client.listResources({ server: 'fx' });
  const templates = await client.listResourceTemplates({ cursor: resources.nextCursor });
  const read = await client.readResource('fx', resources.resources[0]?.uri ?? 'x', { format: 'anthropic' });
  await client.subscribeResource('fx', read.uri);
  await client.unsubscribeResource('fx', read.uri);
  const prompts = await client.listPrompts();
  const prompt = await client.getPrompt('fx', prompts.prompts[0]?.name ?? 'greet', { name: 'Ada' });
  const completion = await client.complete('fx', { type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'a' });
  // @ts-expect-error a reference is to a prompt or a resource
  await client.complete('fx', { type: 'ref/tool', name: 'x' }, { name: 'n', value: 'v' });
  const level = await client.setLogLevel('debug', { server: 'fx' });
  // @ts-expect-error log levels are a closed set
  await client.setLogLevel('verbose');
  const found = await client.searchTools('echo', { limit: 3, format: 'anthropic' });
  const schema: AnthropicDefinition['input_schema'] | undefined = found.tools[0]?.definition.input_schema;
  const stats: ServersStatsResult = await client.serverStats({ servers: ['fx'] });
  const accepted = await client.acceptTools([{ server: 'fx', tool: 'echo', hash: 'sha256:00' }]);
  const login: ServerStatus = await client.loginServer('remote', { wait: false });
  await client.logoutServer('remote');
  const progress: ProgressParams[] = [];
  await client.callTool('mcp__fx__progress', { steps: 3 }, { onProgress: (p) => progress.push(p), resetTimeoutOnProgress: true, maxTotalTimeoutMs: 60_000, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  client.setRoots([...(client.roots ?? []), { uri: 'file:///tmp' }]);
  client.on('notifications/resources/updated', ({ server, uri }) => void [server, uri]);
  client.on('notifications/server/log', (log: ServerLogParams) => void log.level);
  const logs = client.logs({ bufferSize: 100 });
  for await (const log of logs) {
    if (log.level === 'error') break;
  }
  return templates.resourceTemplates.length + read.contents.length + prompt.messages.length + completion.completion.values.length
    + level.servers.length + found.total + (schema ? 1 : 0) + stats.servers[0].total.calls + accepted.accepted.length
    + login.restarts + progress.length + logs.dropped;
}
