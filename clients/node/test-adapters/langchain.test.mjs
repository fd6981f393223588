// langchain.test.mjs — the LangChain.js adapter in a real `createAgent` loop (LangGraph under
// `langchain`), offline: LangChain's FakeToolCallingModel asks for a tool, the agent's tool node
// calls it through the real sidecar on the fixture server, the result reaches the model as a
// ToolMessage, and the run ends with the model's answer (this fake answers with the conversation's
// text, so the tool's text shows in it). Also an image, a tool error, cancellation by the run's
// signal, progress as a LangChain custom event, and a server's sampling request answered by a
// LangChain chat model.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { FakeToolCallingModel, ToolMessage, createAgent } from 'langchain';
import { McpToolError, PROGRESS_EVENT, langchainSamplingHandler, langchainTools } from 'mcp-sidecar/langchain';
import { FIXTURE_PNG, assertCancelled, fixtureClient, recordCalls } from '../test-support/adapters.mjs';

/** A model that asks for `name(args)` once, then answers (with no tool call). */
const scriptedModel = (name, args) => new FakeToolCallingModel({ toolCalls: [[{ name, args, id: 'call-1' }], []] });

/** Runs a createAgent loop; returns the final state's messages. */
async function runAgent(tools, model, config = {}) {
  const agent = createAgent({ model, tools });
  const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'go' }] }, config);
  return messages;
}

const toolMessageOf = (messages) => messages.find((m) => ToolMessage.isInstance(m));

let client;
let tools;
before(async () => {
  client = await fixtureClient();
  tools = await langchainTools(client);
});
after(() => client?.close());

test('the sidecar tools are LangChain structured tools with the servers’ JSON Schemas', () => {
  const echo = tools.find((t) => t.name === 'mcp__fx__echo');
  assert.match(echo.description, /Returns the message unchanged/);
  assert.deepEqual(echo.schema.required, ['message']);
  assert.equal(echo.responseFormat, 'content_and_artifact');
  assert.deepEqual(echo.metadata.server, 'fx');
});

test('a createAgent run calls a tool through the sidecar and ends with the model’s answer', async () => {
  const messages = await runAgent(tools, scriptedModel('mcp__fx__echo', { message: 'hello sidecar' }));
  const toolMessage = toolMessageOf(messages);
  assert.equal(toolMessage.name, 'mcp__fx__echo');
  assert.equal(toolMessage.tool_call_id, 'call-1');
  assert.equal(toolMessage.status, 'success');
  assert.equal(toolMessage.content, 'hello sidecar');
  assert.deepEqual(toolMessage.artifact, { structuredContent: { message: 'hello sidecar', length: 13 } });
  const final = messages.at(-1);
  assert.equal(final.tool_calls?.length ?? 0, 0);
  assert.match(final.content, /hello sidecar/, 'the tool result reached the model');
});

test('an image result reaches the model as standard text and image content blocks', async () => {
  const messages = await runAgent(tools, scriptedModel('mcp__fx__image', {}));
  const toolMessage = toolMessageOf(messages);
  assert.deepEqual(toolMessage.content, [
    { type: 'text', text: 'a 1x1 png' },
    { type: 'image', data: FIXTURE_PNG, mimeType: 'image/png' },
  ]);
  assert.match(messages.at(-1).content, /a 1x1 png/);
});

test('a tool error becomes an error ToolMessage the model reads, and the run goes on to its answer', async () => {
  const messages = await runAgent(tools, scriptedModel('mcp__fx__fail', { message: 'disk on fire' }));
  const toolMessage = toolMessageOf(messages);
  assert.equal(toolMessage.status, 'error');
  assert.match(toolMessage.content, /McpToolError: disk on fire/);
  assert.match(messages.at(-1).content, /disk on fire/);
  // Called directly, the tool raises the error with the MCP result.
  const fail = tools.find((t) => t.name === 'mcp__fx__fail');
  await assert.rejects(fail.invoke({ message: 'x' }), (err) => err instanceof McpToolError && err.result.isError === true);
});

test('a sidecar error (the server is gone) becomes an error ToolMessage the same way', async () => {
  const other = await fixtureClient();
  try {
    const stale = await langchainTools(other);
    await other.removeServer('fx');
    const messages = await runAgent(stale, scriptedModel('mcp__fx__echo', { message: 'x' }));
    const toolMessage = toolMessageOf(messages);
    assert.equal(toolMessage.status, 'error');
    assert.match(toolMessage.content, /SidecarError: .*mcp__fx__echo/);
  } finally {
    await other.close();
  }
});

test('progress of a call is a LangChain custom event of the tool’s run, and reaches onProgress', async () => {
  const events = [];
  const seen = [];
  const withProgress = await langchainTools(client, { servers: ['fx'], onProgress: (p) => seen.push(p) });
  const callbacks = [{ handleCustomEvent: (name, data) => events.push({ name, data }) }];
  await runAgent(withProgress, scriptedModel('mcp__fx__progress', { steps: 3, intervalMs: 0 }), { callbacks });
  assert.ok(events.length >= 1, 'no custom event');
  assert.equal(events.at(-1).name, PROGRESS_EVENT);
  assert.equal(events.at(-1).data.progress, 3);
  assert.equal(events.at(-1).data.toolCallId, 'call-1');
  assert.equal(seen.at(-1).progress, 3);
});

test('aborting the run cancels the call on the sidecar, which keeps serving', { timeout: 30_000 }, async () => {
  const calls = recordCalls(client);
  const controller = new AbortController();
  const cancellable = await langchainTools(client, { onProgress: () => controller.abort(new Error('user stopped')) });
  await assert.rejects(
    runAgent(cancellable, scriptedModel('mcp__fx__progress', { steps: 100000, intervalMs: 1000 }), { signal: controller.signal }),
    (err) => /user stopped|abort|cancel/i.test(`${err.message} ${err.cause?.message ?? ''}`),
  );
  await assertCancelled(calls, 'mcp__fx__progress');
  const again = await client.callTool('mcp__fx__echo', { message: 'still here' });
  assert.equal(again.text, 'still here');
});

test('a server’s sampling request is answered by a LangChain chat model through the adapter’s handler', async () => {
  const chatModel = new FakeListChatModel({ responses: ['42'] });
  const sampling = await fixtureClient({ handlers: { 'sampling/createMessage': langchainSamplingHandler(chatModel) } });
  try {
    const question = { role: 'user', content: { type: 'text', text: 'What is 6 times 7?' } };
    const args = { method: 'sampling/createMessage', params: { messages: [question], maxTokens: 20 } };
    const messages = await runAgent(await langchainTools(sampling), scriptedModel('mcp__fx__ask', args));
    const { artifact } = toolMessageOf(messages);
    assert.deepEqual(artifact.structuredContent.result, {
      role: 'assistant',
      content: { type: 'text', text: '42' },
      model: 'fake-list',
      stopReason: 'endTurn',
    });
  } finally {
    await sampling.close();
  }
});
