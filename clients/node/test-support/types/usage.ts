// usage.ts — compiled (never run) by test/types.test.mjs: exercises the public API the way a
// TypeScript user would, so index.d.ts stays in step with it. Lines marked @ts-expect-error
// must stay errors.

import {
  SidecarClient, SidecarError, findBinary, start, type AnthropicDefinition, type CallToolResult,
  type Notification, type OpenAIDefinition, type ServerStatus, type ToolsListResult, type GeminiDefinition,
  type LoadServersResult, type ServerTestReport, type ReadResultResult,
} from 'mcp-sidecar';

export async function newer(client: SidecarClient): Promise<number> {
  const strict = await start({ toolFormat: 'gemini', strict: true, requireTrust: true });
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
