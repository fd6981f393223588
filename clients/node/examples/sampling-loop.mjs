#!/usr/bin/env node
// sampling-loop.mjs — the other direction of an agent loop: an MCP server asks the host's model
// (`sampling/createMessage`) through the sidecar. The host registers a sampling handler before
// start (so the sidecar tells servers the client can sample), the fixture's `ask` tool makes the
// server send the request, the handler runs a stand-in model (no network), and the model's answer
// travels back to the server and out as the tool's result.
//
//   node examples/sampling-loop.mjs
// Binaries: MCP_SIDECAR_BIN / MCP_FIXTURE_BIN, else this repository's target/debug/ (cargo build).

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HandlerError, start } from 'mcp-sidecar';

const repoBinary = (name) => {
  const path = fileURLToPath(new URL(`../../../target/debug/${name}`, import.meta.url));
  return existsSync(path) ? path : undefined;
};
const sidecarBin = process.env.MCP_SIDECAR_BIN || repoBinary('mcp-sidecar'); // undefined: normal discovery
const fixtureBin = process.env.MCP_FIXTURE_BIN || repoBinary('mcp-fixture') || 'mcp-fixture';

/** A stand-in for a chat model: knows one multiplication, says so otherwise. */
function standInModel(prompt) {
  const product = /(\d+) times (\d+)/.exec(prompt);
  return product ? String(Number(product[1]) * Number(product[2])) : "I don't know.";
}

/** The host's sampling handler: what a server asks, answered by the host's model. */
async function sample(params, { signal }) {
  const prompt = params.messages
    .filter((m) => m.role === 'user' && m.content?.type === 'text')
    .map((m) => m.content.text)
    .join('\n');
  console.log(`server ${params.server} asks the model (maxTokens ${params.maxTokens}): ${prompt}`);
  if (prompt === '') throw new HandlerError(-1, 'nothing to sample: no user text'); // the server sees this error
  signal.throwIfAborted(); // a real model call would take the signal
  const text = standInModel(prompt);
  console.log(`model answers: ${text}`);
  return { role: 'assistant', content: { type: 'text', text }, model: 'stand-in', stopReason: 'endTurn' };
}

const client = await start({
  binaryPath: sidecarBin,
  handlers: { 'sampling/createMessage': sample },
});
try {
  const status = await client.addServer('fx', { command: fixtureBin, args: ['--client-requests'] });
  console.log(`server ${status.name}: ${status.state}`);
  const question = { role: 'user', content: { type: 'text', text: 'What is 6 times 7?' } };
  console.log(`host calls mcp__fx__ask -> sampling/createMessage`);
  const result = await client.callTool('mcp__fx__ask', {
    method: 'sampling/createMessage',
    params: { messages: [question], maxTokens: 20 },
  });
  const { result: sampled } = result.structuredContent;
  console.log(`server got back: ${sampled.content.text} (model ${sampled.model}, ${sampled.stopReason})`);
} finally {
  await client.close();
}
