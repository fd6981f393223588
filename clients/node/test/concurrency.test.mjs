// concurrency.test.mjs — many requests in flight on one client: responses arriving out of
// order are matched to their requests by id.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, requireBinaries, within } from '../test-support/env.mjs';

test('2000 calls in flight across two servers, slow and fast interleaved, each gets its own answer', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  try {
    // Server a holds the three sleeps until all three are in flight (the fixture's barrier), so
    // they start together: 400 ms apart, the shortest answers first however loaded the machine.
    await Promise.all([
      client.addServer('a', { command: FIXTURE_BIN, args: ['--barrier', '3'] }),
      client.addServer('b', { command: FIXTURE_BIN }),
    ]);
    const slow = [900, 500, 100].map((ms) => client.callTool('mcp__a__sleep', { ms }));
    const order = [];
    slow.forEach((p, i) => p.then(() => order.push(i)));
    const calls = Array.from({ length: 2000 }, (_, i) => {
      const server = i % 2 === 0 ? 'a' : 'b';
      return client.callTool(`mcp__${server}__echo`, { message: `m${i}` }).then((r) => {
        assert.equal(r.text, `m${i}`);
        assert.equal(r.server, server);
      });
    });
    await within(30_000, '2000 echo calls', Promise.all(calls));
    const texts = (await within(5000, 'sleeps', Promise.all(slow))).map((r) => r.text);
    assert.deepEqual(texts, ['slept 900 ms', 'slept 500 ms', 'slept 100 ms']);
    assert.deepEqual(order, [2, 1, 0], 'the shortest sleep answered first');
  } finally {
    await client.close();
  }
});
