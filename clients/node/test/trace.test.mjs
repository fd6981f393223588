// trace.test.mjs — callTool's traceparent reaches the server in _meta.traceparent (the sidecar
// exports no spans here, so it passes the context on as given).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, requireBinaries, tempDir } from '../test-support/env.mjs';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test('callTool passes its traceparent and tracestate to the server', async () => {
  requireBinaries();
  const { dir, cleanup } = tempDir();
  const log = join(dir, 'meta.jsonl');
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  try {
    await client.addServer('fx', { command: FIXTURE_BIN, args: ['--log-meta', log] });
    await client.callTool('mcp__fx__echo', { message: 'm' }, { traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    const meta = JSON.parse(readFileSync(log, 'utf8').trim());
    assert.deepEqual([meta.traceparent, meta.tracestate], [TRACEPARENT, 'vendor=1']);
  } finally {
    await client.close();
    cleanup();
  }
});
