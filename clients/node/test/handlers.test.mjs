// handlers.test.mjs — the host's handlers for the sidecar's requests (PROTOCOL.md §17), against
// the real sidecar and fixture (`--client-requests`: `ask`, `client_state`) where it can produce
// the case, else the fake sidecar: the capabilities initialize declares, a handler withdrawn by
// the sidecar's notifications/cancelled (aborted, nothing answered), a throwing handler, many
// handlers at once, a method without a handler, auth/authorize, roots changes, bad options.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { HandlerError, SidecarClient, SidecarError } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, fakeSidecar, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

/** A real sidecar with the fixture `fx` (--client-requests) added; `body(client)`, then close. */
async function withFixture(options, body) {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore', ...options });
  try {
    const status = await client.addServer('fx', { command: FIXTURE_BIN, args: ['--client-requests'] });
    assert.equal(status.state, 'ready', JSON.stringify(status.lastError));
    await body(client);
  } finally {
    await within(20_000, 'close', client.close());
  }
}

const ask = (client, method, params, extra = {}) =>
  client.callTool('mcp__fx__ask', { method, params, ...extra }).then((r) => r.structuredContent);

const clientState = (client) => client.callTool('mcp__fx__client_state', {}).then((r) => r.structuredContent);

test('initialize declares exactly the registered handlers, refined by capabilities', async () => {
  await withFixture({}, async (client) => {
    // Servers hear only the sidecar's own `tasks` when the host registered nothing.
    assert.deepEqual((await clientState(client)).capabilities, { tasks: {} });
  });
  const noop = async () => ({});
  await withFixture(
    {
      handlers: { 'sampling/createMessage': noop, 'elicitation/create': noop, 'auth/authorize': noop },
      roots: [],
      capabilities: { elicitation: { form: {}, url: {} } },
    },
    async (client) => {
      // `auth` is the sidecar's own and is not passed on to servers.
      assert.deepEqual((await clientState(client)).capabilities, {
        sampling: {},
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
        tasks: {},
      });
    },
  );
});

test('a handler the sidecar withdraws is aborted and its late answer is never sent', async () => {
  let aborted;
  let seenParams;
  await withFixture(
    {
      handlers: {
        'roots/list': (params, { signal }) => {
          seenParams = params;
          return new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              aborted = signal.reason;
              resolve({ roots: [{ uri: 'file:///late' }] });
            });
          });
        },
      },
    },
    async (client) => {
      const withdrawn = await within(10_000, 'withdrawn ask', ask(client, 'roots/list', {}, { withdrawAfterMs: 1500 }));
      assert.deepEqual(withdrawn, { withdrawn: true });
      assert.equal(seenParams.server, 'fx');
      assert.ok(aborted instanceof SidecarError, `abort reason: ${aborted}`);
      assert.equal(aborted.code, 'CANCELLED');
      assert.match(aborted.data.requestId, /^sidecar-\d+$/);
    },
  );

  // The wire: with the fake sidecar, which echoes every answer it gets, nothing of the withdrawn
  // request arrives, while a later request's answer does.
  const client = await SidecarClient.start({
    binaryPath: fakeSidecar(tmp.dir),
    handlers: {
      'sampling/createMessage': (params, { signal }) =>
        params.hang
          ? new Promise((resolve) => signal.addEventListener('abort', () => resolve({ late: true })))
          : { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' },
    },
  });
  try {
    const answers = [];
    client.on('test/answer', (p) => answers.push(p));
    const first = await client.callTool('ask', { method: 'sampling/createMessage', params: { hang: true }, withdraw: true });
    const second = await client.callTool('ask', { method: 'sampling/createMessage', params: {} });
    assert.equal(second.structuredContent.result.content.text, 'ok');
    assert.deepEqual(answers.map((a) => a.id), [second.structuredContent.id]);
    assert.notEqual(first.structuredContent.withdrawn, second.structuredContent.id);
  } finally {
    await client.close();
  }
});

test('a handler failure answers its JSON-RPC error: HandlerError as given, anything else -32603', async () => {
  await withFixture(
    {
      handlers: {
        'sampling/createMessage': async (params) => {
          if (params.kind === 'typed') throw new HandlerError(-1, 'rejected by the user', { data: { why: 'no' } });
          if (params.kind === 'not-object') return 'just text';
          throw new Error('the model is down');
        },
      },
    },
    async (client) => {
      const base = { messages: [], maxTokens: 5 };
      assert.deepEqual((await ask(client, 'sampling/createMessage', { ...base, kind: 'typed' })).error, {
        code: -1, message: 'rejected by the user', data: { why: 'no' },
      });
      const plain = (await ask(client, 'sampling/createMessage', { ...base, kind: 'plain' })).error;
      assert.equal(plain.code, -32603);
      assert.match(plain.message, /the model is down/);
      const notObject = (await ask(client, 'sampling/createMessage', { ...base, kind: 'not-object' })).error;
      assert.equal(notObject.code, -32603);
      assert.match(notObject.message, /sampling\/createMessage handler returned string, not an object/);
      // The session goes on.
      assert.deepEqual(await client.ping(), {});
    },
  );
});

test('many handlers run at once and each answers its own request', async () => {
  const COUNT = 16;
  let running = 0;
  let peak = 0;
  let release;
  const allRunning = new Promise((resolve) => {
    release = resolve;
  });
  await withFixture(
    {
      handlers: {
        'elicitation/create': async (params) => {
          running += 1;
          peak = Math.max(peak, running);
          if (running === COUNT) release();
          // Every handler waits until all are running: only concurrent handlers get past this.
          await allRunning;
          running -= 1;
          return { action: 'accept', content: { echo: params.message } };
        },
      },
    },
    async (client) => {
      const results = await within(20_000, `${COUNT} concurrent asks`, Promise.all(
        Array.from({ length: COUNT }, (_, i) =>
          ask(client, 'elicitation/create', { message: `q${i}`, requestedSchema: { type: 'object', properties: {} } })),
      ));
      results.forEach((r, i) => assert.deepEqual(r.result, { action: 'accept', content: { echo: `q${i}` } }));
      assert.equal(peak, COUNT);
    },
  );
});

test('a request without a handler is answered -32601, and auth/authorize reaches its handler', async () => {
  const authorizations = [];
  const client = await SidecarClient.start({
    binaryPath: fakeSidecar(tmp.dir),
    handlers: {
      'auth/authorize': async (params) => {
        authorizations.push(params);
        return { action: 'redirected', redirectUrl: `${params.redirectUri}?code=abc&state=xyz` };
      },
    },
  });
  try {
    const init = (await client.callTool('init')).structuredContent;
    assert.deepEqual(init.capabilities, { auth: {} });
    const params = { server: 'remote', url: 'https://as.example/authorize?state=xyz', redirectUri: 'http://127.0.0.1:3000/callback' };
    const authorized = (await client.callTool('ask', { method: 'auth/authorize', params })).structuredContent;
    assert.deepEqual(authorized.result, { action: 'redirected', redirectUrl: 'http://127.0.0.1:3000/callback?code=abc&state=xyz' });
    assert.deepEqual(authorizations, [params]);
    const unknown = (await client.callTool('ask', { method: 'sampling/createMessage', params: {} })).structuredContent;
    assert.equal(unknown.error.code, -32601);
    assert.match(unknown.error.message, /no handler for sampling\/createMessage/);
  } finally {
    await client.close();
  }
});

test('without handlers, initialize sends no capabilities at all', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const init = (await client.callTool('init')).structuredContent;
    assert.equal('capabilities' in init, false, JSON.stringify(init));
  } finally {
    await client.close();
  }
});

test('setRoots changes the answer of roots/list and announces it', async () => {
  const asked = [];
  let wake = () => {};
  const roots = (params, { client }) => {
    asked.push(params);
    wake();
    return { roots: client.roots };
  };
  await withFixture({ roots: [{ uri: 'file:///a', name: 'a' }], handlers: { 'roots/list': roots } }, async (client) => {
    assert.deepEqual((await ask(client, 'roots/list')).result, { roots: [{ uri: 'file:///a', name: 'a' }] });
    const askedAgain = new Promise((resolve) => {
      wake = () => asked.length === 2 && resolve();
    });
    client.setRoots([{ uri: 'file:///b' }]);
    assert.deepEqual(client.roots, [{ uri: 'file:///b' }]);
    // On the announcement the fixture counts it and asks roots/list again, as servers do.
    await within(10_000, 'roots/list asked again after the announcement', askedAgain);
    assert.equal((await clientState(client)).rootsListChanged, 1);
    assert.deepEqual((await ask(client, 'roots/list')).result, { roots: [{ uri: 'file:///b' }] });
    assert.throws(() => client.setRoots([{ name: 'no uri' }]), /roots\[0\] must be an object with a string uri/);
  });
});

test('bad handlers and capabilities are TypeErrors before anything is spawned', async () => {
  const start = (options) => SidecarClient.start({ binaryPath: '/nonexistent/sidecar', ...options });
  await assert.rejects(start({ handlers: { 'tools/list': async () => ({}) } }), /no request "tools\/list" comes from the sidecar/);
  await assert.rejects(start({ handlers: { 'roots/list': 'x' } }), /must be a function/);
  await assert.rejects(start({ capabilities: { sampling: {} } }), /capabilities.sampling needs a handler for sampling\/createMessage/);
  await assert.rejects(start({ capabilities: { telepathy: {} } }), /unknown capability "telepathy"/);
  await assert.rejects(start({ roots: [{}] }), /roots\[0\]/);
});
