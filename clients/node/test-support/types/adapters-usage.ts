// adapters-usage.ts — a typical use of the framework adapters, type-checked against their
// definitions (src/adapters/*.d.ts) and the frameworks' own types by test-adapters/types.test.mjs.

import { Agent } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { start } from 'mcp-sidecar';
import { aiSdkSamplingHandler, aiSdkTools } from 'mcp-sidecar/ai-sdk';
import { openAIAgentsServer } from 'mcp-sidecar/openai-agents';
import { McpToolError, langchainSamplingHandler, langchainTools } from 'mcp-sidecar/langchain';

export async function usage(): Promise<string> {
  const model = new MockLanguageModelV3();
  const client = await start({ handlers: { 'sampling/createMessage': aiSdkSamplingHandler(model) } });
  const tools = await aiSdkTools(client, { servers: ['fx'], onProgress: (p) => console.error(p.toolName, p.progress) });
  // @ts-expect-error unknown option
  await aiSdkTools(client, { sever: 'fx' });
  const { text } = await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(5) });

  const server = openAIAgentsServer(client, { name: 'tools', timeoutMs: 30_000 });
  await server.connect();
  const agent = new Agent({ name: 'a', mcpServers: [server] });

  const lcTools: DynamicStructuredTool[] = await langchainTools(client);
  const handler = langchainSamplingHandler(new FakeListChatModel({ responses: ['x'] }));
  try {
    await lcTools[0]?.invoke({});
  } catch (err) {
    if (err instanceof McpToolError) console.error(err.toolName, err.result.isError);
  }
  await server.close();
  await client.close();
  return `${text} ${agent.name} ${typeof handler}`;
}
