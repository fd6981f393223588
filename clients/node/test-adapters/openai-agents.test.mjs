// openai-agents.test.mjs — the OpenAI Agents JS adapter in a real `run()` of an `Agent` with
// `mcpServers`, offline: the SDK's ScriptedModel asks for a tool, the SDK calls it through the
// adapter's MCPServer on the real sidecar and fixture server, the result reaches the model's next
// request as a function call result, and the run ends with the model's answer. Also an image, a
// tool error, cancellation by the run's signal, resources, and a server's sampling request answered
// by an Agents model.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, connectMcpServers, run, setTracingDisabled } from '@openai/agents';
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from '@openai/agents/testing';
import { openAIAgentsSamplingHandler, openAIAgentsServer } from 'mcp-sidecar/openai-agents';
import { FIXTURE_PNG, assertCancelled, fixtureClient, recordCalls } from '../test-support/adapters.mjs';

setTracingDisabled(true);

/** A model that asks for `toolName(args)` once, then answers with `reply(functionCallResult)`. */
function scriptedModel(toolName, args, reply) {
  return new ScriptedModel([
    [functionCall(toolName, args, { callId: 'call-1' })],
    modelResponder(({ request }) => {
      const result = request.input.find((item) => item.type === 'function_call_result');
      return [assistantMessage(reply(result))];
    }),
  ]);
}

let client;
let server;
before(async () => {
  client = await fixtureClient();
  server = openAIAgentsServer(client, { name: 'sidecar' });
  await server.connect();
});
after(async () => {
  await server?.close();
  await client?.close();
});

test('the adapter is an MCPServer listing every server’s tools under provider-ready names', async () => {
  assert.equal(server.name, 'sidecar');
  assert.equal(server.cacheToolsList, false);
  const tools = await server.listTools();
  const echo = tools.find((t) => t.name === 'mcp__fx__echo');
  assert.deepEqual(echo.inputSchema.required, ['message']);
  assert.deepEqual(tools.find((t) => t.name === 'mcp__fx__image').inputSchema.properties, {});
});

test('an Agent run calls a tool through the sidecar and ends with the model’s answer', async () => {
  const model = scriptedModel('mcp__fx__echo', { message: 'hello sidecar' }, (r) => `the tool said: ${r.output[0].text}`);
  const agent = new Agent({ name: 'echoer', model, mcpServers: [server] });
  const result = await run(agent, 'echo something');
  assert.equal(result.finalOutput, 'the tool said: hello sidecar');
  model.assertComplete();
  // The first request offered the sidecar's tools as function tools.
  const offered = model.calls[0].request.tools.map((t) => t.name);
  assert.ok(offered.includes('mcp__fx__echo') && offered.includes('mcp__fx__fail'), offered.join(', '));
  const output = result.newItems.find((item) => item.type === 'tool_call_output_item');
  assert.equal(output.rawItem.name, 'mcp__fx__echo');
});

test('the SDK’s connectMcpServers manages it: connected, used by a run, closed without closing the sidecar', async () => {
  const servers = await connectMcpServers([openAIAgentsServer(client, { name: 'managed' })]);
  assert.deepEqual(servers.active.map((s) => s.name), ['managed']);
  assert.equal(servers.failed.length, 0);
  const model = scriptedModel('mcp__fx__echo', { message: 'managed' }, (r) => r.output[0].text);
  const result = await run(new Agent({ name: 'managed', model, mcpServers: servers.active }), 'echo');
  assert.equal(result.finalOutput, 'managed');
  await servers.close();
  assert.equal(client.exitStatus, null, 'the client is left to its owner');
  assert.equal((await client.callTool('mcp__fx__echo', { message: 'open' })).text, 'open');
});

test('an image result reaches the model as an input image', async () => {
  const model = scriptedModel('mcp__fx__image', {}, (r) => r.output.map((part) => part.type).join(' + '));
  const result = await run(new Agent({ name: 'painter', model, mcpServers: [server] }), 'draw');
  assert.equal(result.finalOutput, 'input_text + input_image');
  const image = model.calls[1].request.input.find((i) => i.type === 'function_call_result').output[1];
  assert.equal(image.image, `data:image/png;base64,${FIXTURE_PNG}`);
});

test('a tool error reaches the model as the tool’s output and the run goes on to its answer', async () => {
  const model = scriptedModel('mcp__fx__fail', { message: 'disk on fire' }, (r) => `it failed: ${r.output[0].text}`);
  const result = await run(new Agent({ name: 'failer', model, mcpServers: [server] }), 'fail');
  assert.equal(result.finalOutput, 'it failed: disk on fire');
  const full = await server.callToolResult('mcp__fx__fail', { message: 'x' });
  assert.equal(full.isError, true);
  assert.equal(full.content.isError, true, 'isError rides on the content array, as on the SDK’s own servers');
});

test('a sidecar error (a tool that is gone) goes through the SDK’s error function to the model', async () => {
  // The agent is offered the echo tool, but the call names a tool the sidecar does not have.
  const misnamed = (server) => {
    const original = server.callToolResult.bind(server);
    server.callToolResult = (name, ...rest) => original(`${name}_missing`, ...rest);
    return server;
  };
  const model = scriptedModel('mcp__fx__echo', { message: 'x' }, (r) => r.output[0]?.text ?? r.output.text);
  const result = await run(new Agent({ name: 'lost', model, mcpServers: [misnamed(openAIAgentsServer(client))] }), 'echo');
  assert.equal(result.finalOutput, 'An error occurred while running the tool. Please try again.');

  const errorFunction = ({ error }) => `${error.code}: ${error.message}`;
  const explained = scriptedModel('mcp__fx__echo', { message: 'x' }, (r) => r.output[0]?.text ?? r.output.text);
  const server = misnamed(openAIAgentsServer(client, { errorFunction }));
  const told = await run(new Agent({ name: 'told', model: explained, mcpServers: [server] }), 'echo');
  assert.match(told.finalOutput, /^TOOL_NOT_FOUND: .*mcp__fx__echo_missing/);
});

test('aborting the run cancels the call on the sidecar, which keeps serving', { timeout: 30_000 }, async () => {
  const calls = recordCalls(client);
  const controller = new AbortController();
  const cancellable = openAIAgentsServer(client, { onProgress: () => controller.abort(new Error('user stopped')) });
  const model = new ScriptedModel([[functionCall('mcp__fx__progress', { steps: 100000, intervalMs: 1000 }, { callId: 'c' })]]);
  const agent = new Agent({ name: 'worker', model, mcpServers: [cancellable] });
  await assert.rejects(run(agent, 'work forever', { signal: controller.signal }), (err) =>
    /user stopped|abort|cancel/i.test(`${err.message} ${err.cause?.message ?? ''}`),
  );
  assert.equal(model.calls.length, 1);
  await assertCancelled(calls, 'mcp__fx__progress');
  const again = await client.callTool('mcp__fx__echo', { message: 'still here' });
  assert.equal(again.text, 'still here');
});

test('resources are listed and read by URI across the sidecar’s servers', async () => {
  const { resources } = await server.listResources();
  assert.ok(resources.some((r) => r.uri === 'fixture://text/readme'));
  const fresh = openAIAgentsServer(client);
  const { contents } = await fresh.readResource('fixture://text/readme');
  assert.equal(contents[0].uri, 'fixture://text/readme');
  assert.equal(typeof contents[0].text, 'string');
  await assert.rejects(fresh.readResource('fixture://nowhere'), /no server of mcp-sidecar lists the resource fixture:\/\/nowhere/);
});

test('a server’s sampling request is answered by an Agents model through the adapter’s handler', async () => {
  const samplingModel = new ScriptedModel([[assistantMessage('42')]]);
  const handler = openAIAgentsSamplingHandler(samplingModel, { modelName: 'scripted' });
  const sampling = await fixtureClient({ handlers: { 'sampling/createMessage': handler } });
  const samplingServer = openAIAgentsServer(sampling, { closeClient: true });
  try {
    const question = { role: 'user', content: { type: 'text', text: 'What is 6 times 7?' } };
    const model = scriptedModel(
      'mcp__fx__ask',
      { method: 'sampling/createMessage', params: { messages: [question], maxTokens: 20, systemPrompt: 'Be brief.' } },
      (r) => `the server heard: ${JSON.parse(r.output[0].text).result.content.text}`,
    );
    await samplingServer.connect();
    const result = await run(new Agent({ name: 'asker', model, mcpServers: [samplingServer] }), 'ask the server');
    assert.equal(result.finalOutput, 'the server heard: 42');
    const { request } = samplingModel.calls[0];
    assert.equal(request.systemInstructions, 'Be brief.');
    assert.equal(request.modelSettings.maxTokens, 20);
    assert.equal(request.input[0].content[0].text, 'What is 6 times 7?');
  } finally {
    await samplingServer.close();
  }
  assert.notEqual(sampling.exitStatus, null, 'closeClient: true closes the client with the server');
});
