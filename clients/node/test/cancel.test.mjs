// cancel.test.mjs — AbortSignal cancellation as the platform does it (`fetch`): the call rejects at
// once with the signal's reason (a DOMException AbortError for `abort()`, TimeoutError for
// `AbortSignal.timeout()`, the caller's own reason), `notifications/cancelled {requestId}` goes out
// with the request's id (seen by a fake sidecar, and by the real fixture, which logs `cancelled <id>`
// into its stderr tail), an already-aborted signal sends nothing, and the session keeps working.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, fakeSidecar, pollUntil, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

test('abort sends notifications/cancelled with the request id and rejects at once', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const echoed = new Promise((resolve) => client.once('test/cancelled', resolve));
    const controller = new AbortController();
    const call = client.callTool('hang', {}, { signal: controller.signal });
    await client.ping(); // the request is on the wire
    const reason = new Error('user pressed stop');
    const t0 = performance.now();
    controller.abort(reason);
    const err = await call.catch((e) => e);
    assert.ok(performance.now() - t0 < 100, 'rejected at once');
    assert.equal(err, reason, 'rejected with the signal\'s reason itself');
    const seen = await within(5000, 'fake sidecar to receive the cancel', echoed);
    assert.ok(Number.isInteger(seen.requestId));
    assert.deepEqual(JSON.parse(seen.line), {
      jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: seen.requestId },
    });
  } finally {
    await client.close();
  }
});

test('an already-aborted signal rejects without sending anything', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const cancels = [];
    client.on('test/cancelled', (p) => cancels.push(p));
    const signal = AbortSignal.abort();
    const err = await client.callTool('hang', {}, { signal }).catch((e) => e);
    assert.equal(err, signal.reason);
    assert.ok(err instanceof DOMException);
    assert.equal(err.name, 'AbortError');
    await client.ping(); // the fake answers in order: a cancel sent before would be echoed by now
    assert.deepEqual(cancels, []);
  } finally {
    await client.close();
  }
});

test('through the real sidecar: the fixture sees the cancel, later calls work', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  try {
    await client.addServer('fx', { command: FIXTURE_BIN });
    const controller = new AbortController();
    const sleeping = client.callTool('mcp__fx__sleep', { ms: 30_000 }, { signal: controller.signal });
    // The fixture answers in order, so once this echo is back the sleep has reached it.
    assert.equal((await client.callTool('mcp__fx__echo', { message: 'after sleep' })).text, 'after sleep');
    controller.abort();
    // What `fetch` gives for abort() without a reason: a DOMException named AbortError.
    const aborted = await within(2000, 'cancelled call', sleeping.catch((e) => e));
    assert.ok(aborted instanceof DOMException, `rejected with ${aborted}`);
    assert.equal(aborted.name, 'AbortError');
    assert.equal(aborted, controller.signal.reason);
    const tail = await pollUntil(5000, 'fixture stderr to show the cancel', async () => {
      const { servers } = await client.listServers();
      return /cancelled \S+/.test(servers[0].stderrTail) && servers[0].stderrTail;
    });
    assert.match(tail, /cancelled \S+/);
    assert.equal((await client.callTool('mcp__fx__echo', { message: 'still fine' })).text, 'still fine');

    // AbortSignal.timeout works the same way: the rejection is its TimeoutError.
    const err = await client.callTool('mcp__fx__sleep', { ms: 30_000 }, { signal: AbortSignal.timeout(50) }).catch((e) => e);
    assert.ok(err instanceof DOMException, `rejected with ${err}`);
    assert.equal(err.name, 'TimeoutError');

    // Other requests take a signal too: an add cancelled once the slow server has started
    // stops only the waiting; the add itself completes (PROTOCOL.md §11).
    const add = new AbortController();
    const ready = new Promise((resolve) => {
      client.on('notifications/servers/changed', ({ status }) => {
        if (status.name !== 'slow') return;
        if (status.state === 'starting' && status.pid !== undefined) add.abort();
        if (status.state === 'ready') resolve(status);
      });
    });
    const adding = client.addServer('slow', { command: FIXTURE_BIN, args: ['--slow-start', '300'] }, { signal: add.signal });
    await within(10_000, 'the add to be cancelled', assert.rejects(adding, { name: 'AbortError' }));
    await within(10_000, 'the cancelled add to still end ready', ready);
  } finally {
    await client.close();
  }
});
