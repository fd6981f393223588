// notifications.test.mjs — notifications via the EventEmitter ('notification' and per-method
// events) and via the bounded async iterator: delivery, drop-oldest overflow, the end of the
// iteration on close, on break and on an AbortSignal.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, fakeSidecar, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

test('emitter and iterator both see the real sidecar notifications', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  const all = [];
  const serverChanges = [];
  const toolChanges = [];
  client.on('notification', (n) => all.push(n));
  client.on('notifications/servers/changed', (p) => serverChanges.push(p));
  client.on('notifications/tools/changed', (p) => toolChanges.push(p));
  const stream = client.notifications();
  const status = await client.addServer('fx', { command: FIXTURE_BIN });
  assert.equal(status.state, 'ready');
  // servers/* notifications are written before the response, so they are all here already.
  assert.deepEqual(serverChanges.map((p) => p.status.state), ['starting', 'starting', 'ready']);
  assert.equal(toolChanges.length, 1);
  assert.equal(toolChanges[0].added.length, 7);
  assert.deepEqual(toolChanges[0].removed, []);
  assert.equal(all.length, 4);

  const seen = [];
  for await (const n of stream) {
    seen.push(n);
    if (seen.length === all.length) break;
  }
  assert.deepEqual(seen, all);
  assert.equal(stream.dropped, 0);

  // A consumer waiting when the client closes: it gets the stop notifications, then the end.
  const rest = client.notifications();
  const consumed = (async () => {
    const got = [];
    for await (const n of rest) got.push(n);
    return got;
  })();
  assert.deepEqual(await client.close(), { code: 0, signal: null });
  const got = await within(5000, 'iteration to end on close', consumed);
  assert.ok(got.some((n) => n.method === 'notifications/servers/changed' && n.params.status.state === 'stopped'));
  const late = client.notifications();
  assert.deepEqual(await late.next(), { value: undefined, done: true });
});

test('a full iterator buffer drops the oldest and counts them; the emitter gets everything', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const small = client.notifications({ bufferSize: 4 });
    const big = client.notifications();
    let emitted = 0;
    client.on('test/n', () => {
      emitted += 1;
    });
    await client.callTool('notify', { count: 10 });
    assert.equal(emitted, 10);
    assert.equal(small.dropped, 6);
    const kept = [];
    for (let i = 0; i < 4; i += 1) kept.push((await small.next()).value.params.i);
    assert.deepEqual(kept, [6, 7, 8, 9]);
    assert.equal(big.dropped, 0);
    assert.equal((await big.next()).value.params.i, 0);
    await big.return();
    assert.deepEqual(await big.next(), { value: undefined, done: true });
  } finally {
    await client.close();
  }
});

test('an AbortSignal ends a waiting iteration', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const controller = new AbortController();
    const stream = client.notifications({ signal: controller.signal });
    const next = stream.next();
    controller.abort();
    assert.deepEqual(await within(1000, 'iteration end', next), { value: undefined, done: true });
    assert.throws(() => client.notifications({ bufferSize: 0 }), /bufferSize must be a positive integer/);
  } finally {
    await client.close();
  }
});
