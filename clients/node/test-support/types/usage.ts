// usage.ts — compiled (never run) by test/types.test.mjs: exercises the public API the way a
// TypeScript user would, so index.d.ts stays in step with it. Lines marked @ts-expect-error
// must stay errors.

import {
  SidecarClient, SidecarError, findBinary, start, type AnthropicDefinition, type CallToolResult,
  type Notification, type OpenAIDefinition, type ServerStatus, type ToolsListResult,
} from 'mcp-sidecar';

export async function example(): Promise<string> {
  const client: SidecarClient = await start({ toolFormat: 'anthropic', stderr: (line: string) => void line });
  const status: ServerStatus = await client.addServer('fx', { command: 'mcp-fixture', args: [] }, { wait: true });
  const state: 'stopped' | 'starting' | 'ready' | 'unhealthy' | 'error' = status.state;
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
  await SidecarClient.start({ toolFormat: 'gemini' });
  // @ts-expect-error callTool arguments are an object
  await client.callTool('x', 'not an object');
  // @ts-expect-error servers/add needs a command
  await client.addServer('x', { args: [] });
  return [state, fn.function.name, anthropic.tools[0]?.definition.input_schema.type, any.fingerprint,
    result.text, path, source, String(exit.code)].join();
}
