#!/usr/bin/env node
// agent-loop.mjs — an agent loop through mcp-sidecar, runnable offline: the tool list in OpenAI
// Chat Completions format goes to a scripted fake model, which picks a tool; the loop calls it
// through the sidecar and feeds the result (or the error) back, until the model answers.
//
//   node examples/agent-loop.mjs
// Binaries: MCP_SIDECAR_BIN / MCP_FIXTURE_BIN, else this repository's target/debug/ (cargo build).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SidecarError, start } from 'mcp-sidecar';

const repoBinary = (name) => {
  const path = fileURLToPath(new URL(`../../../target/debug/${name}`, import.meta.url));
  return existsSync(path) ? path : undefined;
};
const sidecarBin = process.env.MCP_SIDECAR_BIN || repoBinary('mcp-sidecar'); // undefined: normal discovery
const fixtureBin = process.env.MCP_FIXTURE_BIN || repoBinary('mcp-fixture') || 'mcp-fixture';

/**
 * A scripted stand-in for a chat model: same message and tool shapes as the OpenAI Chat
 * Completions API. It first calls the echo tool with a wrong argument name, corrects itself
 * after the error, then answers with the tool's output.
 */
function fakeModel(messages, tools) {
  const last = messages.at(-1);
  const echo = tools.find((t) => t.function.name.endsWith('__echo'));
  const toolCall = (id, args) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: echo.function.name, arguments: JSON.stringify(args) } }],
  });
  if (last.role === 'user') return toolCall('call_1', { text: last.content });
  if (last.role === 'tool' && last.content.startsWith('error')) {
    const question = messages.findLast((m) => m.role === 'user').content;
    return toolCall('call_2', { message: question });
  }
  return { role: 'assistant', content: `The echo tool says: ${last.content}` };
}

// Node 20 (the oldest Node this package supports) has no `await using`: close in `finally`.
const client = await start({ binaryPath: sidecarBin }); // the sidecar's own logs: warnings only
try {
  await agentLoop(client);
} finally {
  await client.close();
}

/** The loop: the model's tool calls run through the sidecar until the model answers. */
async function agentLoop(client) {
  const status = await client.addServer('fx', { command: fixtureBin });
  console.log(`server ${status.name}: ${status.state}, ${status.toolsCount} tools`);
  const { tools, fingerprint } = await client.listTools({ format: 'openai' });
  const definitions = tools.map((t) => t.definition);
  console.log(`tools (${fingerprint.slice(0, 19)}…): ${definitions.map((d) => d.function.name).join(', ')}`);

  const messages = [{ role: 'user', content: 'hello from the agent loop' }];
  console.log(`user: ${messages[0].content}`);
  for (let turn = 0; turn < 5; turn += 1) {
    const reply = fakeModel(messages, definitions);
    messages.push(reply);
    if (!reply.tool_calls) {
      console.log(`assistant: ${reply.content}`);
      return;
    }
    for (const call of reply.tool_calls) {
      console.log(`assistant -> ${call.function.name}(${call.function.arguments})`);
      let content;
      try {
        const result = await client.callTool(call.function.name, JSON.parse(call.function.arguments), { timeoutMs: 10_000 });
        content = result.output; // a string in the openai format
      } catch (err) {
        if (!(err instanceof SidecarError)) throw err;
        content = `error ${err.code}: ${err.message}`; // the model sees what went wrong
      }
      console.log(`tool: ${content}`);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new Error('the model did not finish within 5 turns');
}
