// start.test.mjs — start() against a sidecar that never answers initialize: the start timeout (a
// TimeoutError) and the AbortSignal (its reason) end it and stop the sidecar, and a host that does
// nothing else then exits by itself (the pending initialize does not hold it forever).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { SidecarClient, SidecarError } from '../src/index.js';
import { PACKAGE_ROOT, REPO_ROOT, within } from '../test-support/env.mjs';

const SILENT = {
  binaryPath: join(REPO_ROOT, 'proto', 'scenarios', 'hostile', 'hostile_sidecar.py'),
  args: ['silent-initialize'],
};

test('an AbortSignal ends a start() waiting for initialize with the signal\'s reason', async () => {
  const controller = new AbortController();
  const starting = SidecarClient.start({ ...SILENT, startTimeoutMs: Infinity, signal: controller.signal });
  const reason = new Error('the user gave up');
  controller.abort(reason);
  const err = await within(10_000, 'start after abort', starting.catch((e) => e));
  assert.equal(err, reason);
  const already = await SidecarClient.start({ ...SILENT, signal: AbortSignal.abort() }).catch((e) => e);
  assert.ok(already instanceof DOMException);
  assert.equal(already.name, 'AbortError');
});

test('startTimeoutMs ends a start() waiting for initialize with a TimeoutError (code TIMEOUT)', async () => {
  const err = await within(10_000, 'start', SidecarClient.start({ ...SILENT, startTimeoutMs: 300 }).catch((e) => e));
  assert.ok(err instanceof SidecarError);
  assert.equal(err.name, 'TimeoutError');
  assert.equal(err.code, 'TIMEOUT');
  assert.equal(err.data.limit, 300);
  assert.match(err.message, /did not answer initialize within startTimeoutMs \(300 ms\)/);
  await assert.rejects(SidecarClient.start({ ...SILENT, startTimeoutMs: 0 }), TypeError);
});

test('a host whose sidecar never answers initialize exits by itself', async () => {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'test-support', 'silent-start.mjs'), '300'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const code = await within(20_000, 'the host to exit', new Promise((resolve) => child.on('exit', resolve)));
  assert.equal(code, 0);
  assert.equal(out.trim(), 'TIMEOUT');
});
