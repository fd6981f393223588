// ai-sdk.test.mjs — the Vercel AI SDK adapter in a real `generateText` agent loop, offline: the
// SDK's MockLanguageModelV3 asks for a tool, the adapter calls it through the real sidecar on the
// fixture server, the result reaches the model's next prompt in the SDK's tool-result shape, and
// the run ends with the model's answer. Also an image, a tool error, cancellation, progress, and a
// server's sampling request answered by an AI SDK model.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { aiSdkSamplingHandler, aiSdkTools } from 'mcp-sidecar/ai-sdk';
import { FIXTURE_PNG, assertCancelled, fixtureClient, recordCalls } from '../test-support/adapters.mjs';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const toolCall = (toolName, args) => ({
  content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(args) }],
  finishReason: { unified: 'tool-calls', raw: undefined },
  usage,
  warnings: [],
});
const answer = (text) => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] });

/** A model that asks for `toolName(args)` once, then answers with what `reply(toolResult)` says. */
function scriptedModel(toolName, args, reply) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const result = prompt.find((m) => m.role === 'tool')?.content.find((p) => p.type === 'tool-result');
      return result ? answer(reply(result)) : toolCall(toolName, args);
    },
  });
}

let client;
let tools;
before(async () => {
  client = await fixtureClient();
  tools = await aiSdkTools(client);
});
after(() => client?.close());

test('the sidecar tools are an AI SDK tool set: dynamic tools with the servers’ JSON Schemas', () => {
  const echo = tools.mcp__fx__echo;
  assert.equal(echo.type, 'dynamic');
  assert.match(echo.description, /Returns the message unchanged/);
  assert.deepEqual(echo.inputSchema.jsonSchema.required, ['message']);
  assert.equal(tools.mcp__fx__image.inputSchema.jsonSchema.type, 'object');
});

test('a generateText run calls a tool through the sidecar and ends with the model’s answer', async () => {
  const model = scriptedModel('mcp__fx__echo', { message: 'hello sidecar' }, (r) => `the tool said: ${r.output.value}`);
  const run = await generateText({ model, tools, prompt: 'echo something', stopWhen: stepCountIs(3) });
  assert.equal(run.text, 'the tool said: hello sidecar');
  assert.equal(model.doGenerateCalls.length, 2);
  const [step] = run.steps;
  assert.equal(step.toolResults[0].toolName, 'mcp__fx__echo');
  assert.deepEqual(step.toolResults[0].output.structuredContent, { message: 'hello sidecar', length: 13 });
  // The model's second prompt carries the result in the SDK's own shape.
  const toolMessage = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool');
  assert.deepEqual(toolMessage.content[0].output, { type: 'text', value: 'hello sidecar' });
});

test('an image result reaches the model as image data', async () => {
  const model = scriptedModel('mcp__fx__image', {}, (r) => `got ${r.output.type} with ${r.output.value.length} parts`);
  const run = await generateText({ model, tools, prompt: 'draw', stopWhen: stepCountIs(3) });
  assert.equal(run.text, 'got content with 2 parts');
  const toolMessage = model.doGenerateCalls[1].prompt.find((m) => m.role === 'tool');
  const { output } = toolMessage.content[0];
  assert.equal(output.type, 'content');
  assert.deepEqual(output.value[0], { type: 'text', text: 'a 1x1 png' });
  assert.equal(output.value[1].data, FIXTURE_PNG);
  assert.equal(output.value[1].mediaType, 'image/png');
});

test('a tool error reaches the model as error text and the run goes on to its answer', async () => {
  const model = scriptedModel('mcp__fx__fail', { message: 'disk on fire' }, (r) => `${r.output.type}: ${r.output.value}`);
  const run = await generateText({ model, tools, prompt: 'fail', stopWhen: stepCountIs(3) });
  assert.equal(run.text, 'error-text: disk on fire');
  assert.equal(run.steps[0].toolResults[0].output.isError, true);
});

test('a sidecar error (the server is gone) reaches the model as the SDK’s tool error', async () => {
  const other = await fixtureClient();
  try {
    const stale = await aiSdkTools(other);
    await other.removeServer('fx');
    const model = scriptedModel('mcp__fx__echo', { message: 'x' }, (r) => `${r.type}: ${r.output.type}: ${r.output.value}`);
    const run = await generateText({ model, tools: stale, prompt: 'echo', stopWhen: stepCountIs(3) });
    assert.match(run.text, /^tool-result: error-text: .*(TOOL_NOT_FOUND|mcp__fx__echo)/);
    const failed = run.steps[0].content.find((part) => part.type === 'tool-error');
    assert.equal(failed.error.code, 'TOOL_NOT_FOUND');
  } finally {
    await other.close();
  }
});

test('progress of a call reaches onProgress with the call’s id', async () => {
  const seen = [];
  const withProgress = await aiSdkTools(client, { servers: ['fx'], onProgress: (p) => seen.push(p) });
  const model = scriptedModel('mcp__fx__progress', { steps: 3, intervalMs: 0 }, () => 'done');
  const run = await generateText({ model, tools: withProgress, prompt: 'work', stopWhen: stepCountIs(3) });
  assert.equal(run.text, 'done');
  assert.ok(seen.length >= 1, 'no progress reached onProgress');
  assert.equal(seen.at(-1).toolCallId, 'call-mcp__fx__progress');
  assert.equal(seen.at(-1).toolName, 'mcp__fx__progress');
  assert.equal(seen.at(-1).progress, 3);
});

test('aborting the run cancels the call on the sidecar, which keeps serving', { timeout: 30_000 }, async () => {
  const calls = recordCalls(client);
  const controller = new AbortController();
  // The first progress update proves the server is running the call; the run is aborted then.
  const cancellable = await aiSdkTools(client, { onProgress: () => controller.abort(new Error('user stopped')) });
  const model = scriptedModel('mcp__fx__progress', { steps: 100000, intervalMs: 1000 }, () => 'never');
  await assert.rejects(
    generateText({ model, tools: cancellable, prompt: 'work forever', stopWhen: stepCountIs(3), abortSignal: controller.signal }),
    (err) => /user stopped|abort|cancel/i.test(`${err.message} ${err.cause?.message ?? ''}`),
  );
  assert.equal(model.doGenerateCalls.length, 1);
  await assertCancelled(calls, 'mcp__fx__progress');
  const again = await client.callTool('mcp__fx__echo', { message: 'still here' });
  assert.equal(again.text, 'still here');
});

test('a server’s sampling request is answered by an AI SDK model through the adapter’s handler', async () => {
  const samplingModel = new MockLanguageModelV3({ modelId: 'mock-sampler', doGenerate: async () => answer('42') });
  const sampling = await fixtureClient({ handlers: { 'sampling/createMessage': aiSdkSamplingHandler(samplingModel) } });
  try {
    const question = { role: 'user', content: { type: 'text', text: 'What is 6 times 7?' } };
    const agentTools = await aiSdkTools(sampling);
    const model = scriptedModel(
      'mcp__fx__ask',
      { method: 'sampling/createMessage', params: { messages: [question], maxTokens: 20, systemPrompt: 'Be brief.' } },
      (r) => `the server heard: ${JSON.parse(r.output.value).result.content.text}`,
    );
    const run = await generateText({ model, tools: agentTools, prompt: 'ask the server', stopWhen: stepCountIs(3) });
    assert.equal(run.text, 'the server heard: 42');
    const [call] = samplingModel.doGenerateCalls;
    assert.equal(call.maxOutputTokens, 20);
    assert.deepEqual(call.prompt[0], { role: 'system', content: 'Be brief.' });
    assert.equal(call.prompt[1].content[0].text, 'What is 6 times 7?');
    const sampled = run.steps[0].toolResults[0].output.structuredContent.result;
    assert.deepEqual(sampled, { role: 'assistant', content: { type: 'text', text: '42' }, model: 'mock-sampler', stopReason: 'endTurn' });
  } finally {
    await sampling.close();
  }
});

test('unknown adapter options are a TypeError', async () => {
  await assert.rejects(aiSdkTools(client, { sever: 'fx' }), TypeError);
});
