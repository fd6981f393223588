#!/usr/bin/env node
// adapters-agent.mjs — one "agent process" of the framework benchmark (adapters.mjs runs it): for
// one framework, reaches the five stdio servers either through the mcp-sidecar adapter or through
// the framework's own MCP client, and measures the time from start to the first tool list and the
// calls per second through the framework's tool interface (server-everything's `echo`). It prints
// one JSON line, then waits to be killed (`kill -9`, by adapters.mjs, which counts the server
// processes left behind).
//
//   node adapters-agent.mjs FRAMEWORK VARIANT SERVERS_JSON CALLS IN_FLIGHT
// FRAMEWORK: ai-sdk | openai-agents | langchain; VARIANT: sidecar | native.

import { performance } from 'node:perf_hooks';

const [framework, variant, serversJson, callsArg, inFlightArg] = process.argv.slice(2);
const servers = JSON.parse(serversJson);
const calls = Number(callsArg);
const inFlight = Number(inFlightArg);
const message = { message: 'benchmark' };

/** Per framework and variant: set up, return `{tools: count, call(): Promise}` calling echo once. */
const setups = {
  'ai-sdk': {
    async sidecar() {
      const client = await sidecarClient();
      const { aiSdkTools } = await import('../src/adapters/ai-sdk.js');
      const tools = await aiSdkTools(client);
      return aiSdkCaller(tools, 'mcp__everything__echo');
    },
    async native() {
      const { createMCPClient } = await import('@ai-sdk/mcp');
      const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
      const clients = await Promise.all(
        Object.values(servers).map(({ command, args = [] }) =>
          createMCPClient({ transport: new Experimental_StdioMCPTransport({ command, args, stderr: 'ignore' }) }),
        ),
      );
      const tools = Object.assign({}, ...(await Promise.all(clients.map((c) => c.tools()))));
      return aiSdkCaller(tools, 'echo');
    },
  },
  'openai-agents': {
    async sidecar() {
      const client = await sidecarClient();
      const { openAIAgentsServer } = await import('../src/adapters/openai-agents.js');
      const server = openAIAgentsServer(client);
      await server.connect();
      return agentsCaller([server], 'mcp__everything__echo');
    },
    async native() {
      const { MCPServerStdio } = await import('@openai/agents');
      const mcpServers = Object.entries(servers).map(
        // Its default 5 s session timeout fails starts on a loaded machine (openai-agents-js#772).
        ([name, { command, args = [] }]) => new MCPServerStdio({ name, command, args, clientSessionTimeoutSeconds: 60 }),
      );
      await Promise.all(mcpServers.map((s) => s.connect()));
      return agentsCaller(mcpServers, 'echo');
    },
  },
  langchain: {
    async sidecar() {
      const client = await sidecarClient();
      const { langchainTools } = await import('../src/adapters/langchain.js');
      return langchainCaller(await langchainTools(client), 'mcp__everything__echo');
    },
    async native() {
      const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
      const mcpServers = {};
      for (const [name, { command, args = [] }] of Object.entries(servers)) mcpServers[name] = { transport: 'stdio', command, args, stderr: 'ignore' };
      const client = new MultiServerMCPClient({ mcpServers, useStandardContentBlocks: true });
      return langchainCaller(await client.getTools(), 'echo');
    },
  },
};

async function sidecarClient() {
  const { start } = await import('../src/index.js');
  const client = await start({ binaryPath: process.env.MCP_SIDECAR_BIN, stderr: 'ignore' });
  const statuses = await Promise.all(Object.entries(servers).map(([name, config]) => client.addServer(name, config)));
  for (const status of statuses) {
    if (status.state !== 'ready') throw new Error(`${status.name}: ${status.state} ${status.lastError?.message}`);
  }
  return client;
}

function aiSdkCaller(tools, name) {
  const echo = tools[name];
  if (!echo) throw new Error(`no tool ${name}`);
  let id = 0;
  return { tools: Object.keys(tools).length, call: () => echo.execute(message, { toolCallId: `b${id++}`, messages: [] }) };
}

async function agentsCaller(mcpServers, name) {
  const { Agent, RunContext, getAllMcpTools } = await import('@openai/agents');
  const runContext = new RunContext();
  const agent = new Agent({ name: 'bench' });
  const tools = await getAllMcpTools({ mcpServers, runContext, agent });
  const echo = tools.find((t) => t.name === name);
  if (!echo) throw new Error(`no tool ${name}`);
  const input = JSON.stringify(message);
  return { tools: tools.length, call: () => echo.invoke(runContext, input) };
}

function langchainCaller(tools, name) {
  const echo = tools.find((t) => t.name === name);
  if (!echo) throw new Error(`no tool ${name}`);
  return { tools: tools.length, call: () => echo.invoke(message) };
}

const started = performance.now();
const { tools, call } = await setups[framework][variant]();
const startToListMs = performance.now() - started;

for (let i = 0; i < 20; i++) await call(); // warm-up
let t = performance.now();
for (let i = 0; i < calls; i++) await call();
const sequentialPerSec = calls / ((performance.now() - t) / 1000);
t = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next++ < calls) await call();
  }),
);
const concurrentPerSec = calls / ((performance.now() - t) / 1000);

process.stdout.write(`${JSON.stringify({ framework, variant, tools, startToListMs, sequentialPerSec, concurrentPerSec })}\n`);
setInterval(() => {}, 1 << 30); // stay up until killed
