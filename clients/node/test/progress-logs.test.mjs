// progress-logs.test.mjs — a call's progress callback (only its own updates, none after it ended,
// none asked for without one) and the server-log stream (the serverLogs start option, the
// bounded buffer that drops the oldest and counts it, the end on close).

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, fakeSidecar, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

test('each call with onProgress gets only its own progress; a call without asks for none', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  try {
    await client.addServer('fx', { command: FIXTURE_BIN, args: ['--client-requests'] });
    const a = [];
    const b = [];
    const [ra, rb] = await Promise.all([
      client.callTool('mcp__fx__progress', { steps: 3 }, { onProgress: (p) => a.push(p) }),
      client.callTool('mcp__fx__progress', { steps: 5 }, { onProgress: (p) => b.push(p) }),
    ]);
    assert.equal(ra.structuredContent.steps, 3);
    assert.equal(rb.structuredContent.steps, 5);
    assert.ok(a.length > 0 && b.length > 0);
    assert.deepEqual(a.at(-1), { requestId: a[0].requestId, progress: 3, total: 3, message: 'step 3 of 3' });
    assert.deepEqual(b.at(-1), { requestId: b[0].requestId, progress: 5, total: 5, message: 'step 5 of 5' });
    assert.equal(new Set(a.map((p) => p.requestId)).size, 1);
    assert.equal(new Set(b.map((p) => p.requestId)).size, 1);
    assert.notEqual(a[0].requestId, b[0].requestId);

    // Without a callback the server gets no progress token, so nothing comes.
    const progressEvents = [];
    client.on('notifications/progress', (p) => progressEvents.push(p));
    const plain = await client.callTool('mcp__fx__progress', { steps: 2 });
    assert.equal(plain.structuredContent.token, null);
    assert.deepEqual(progressEvents, []);
  } finally {
    await client.close();
  }
});

test('progress that arrives after its call ended reaches no callback', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  try {
    const seen = [];
    const all = [];
    client.on('notifications/progress', (p) => all.push(p));
    await client.callTool('progress', { count: 2, late: 2 }, { onProgress: (p) => seen.push(p.progress) });
    await client.ping(); // the fake wrote the late updates before this answer
    assert.deepEqual(seen, [1, 2]);
    assert.deepEqual(all.map((p) => p.progress), [1, 2, 3, 4]);
  } finally {
    await client.close();
  }
});

test('the log stream starts at the serverLogs level, keeps the newest bufferSize and counts the dropped', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore', serverLogs: 'info' });
  try {
    await client.addServer('fx', { command: FIXTURE_BIN, args: ['--surface'] });
    const stream = client.logs({ bufferSize: 3 });
    const all = [];
    const COUNT = 8;
    const allArrived = new Promise((resolve) => {
      client.on('notifications/server/log', (p) => {
        all.push(p);
        if (p.data === `m${COUNT - 1}`) resolve();
      });
    });
    const emit = (level, data) => client.callTool('mcp__fx__emit', { kind: 'log', level, data });
    await emit('debug', 'below the level');
    for (let i = 0; i < COUNT; i += 1) await emit('warning', `m${i}`);
    await within(10_000, 'every log to arrive', allArrived);
    // The sidecar keeps a server's order: the debug message would have come before m0.
    assert.deepEqual(all.map((p) => p.data), Array.from({ length: COUNT }, (_, i) => `m${i}`));

    assert.equal(stream.dropped, COUNT - 3);
    const kept = [];
    for (let i = 0; i < 3; i += 1) kept.push((await stream.next()).value);
    assert.deepEqual(kept.map((p) => p.data), ['m5', 'm6', 'm7']);
    assert.deepEqual(kept[0], { server: 'fx', level: 'warning', data: 'm5' });

    const ended = (async () => {
      const rest = [];
      for await (const log of stream) rest.push(log);
      return rest;
    })();
    await client.close();
    assert.deepEqual(await within(5000, 'the log stream to end on close', ended), []);
  } finally {
    await client.close();
  }
});
