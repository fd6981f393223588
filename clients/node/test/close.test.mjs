// close.test.mjs — closing: shutdown and exit 0, Symbol.asyncDispose, idempotence, requests in
// flight at close, SIGKILL for a sidecar that ignores shutdown, and no sidecar (or server) left
// behind by a program that never calls close().

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import {
  PACKAGE_ROOT, SIDECAR_BIN, fakeSidecar, pidAlive, pollUntil, requireBinaries, tempDir, within,
} from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

test('close() shuts down, waits for exit 0, and is idempotent; asyncDispose closes too', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  const first = client.close();
  assert.equal(client.close(), first);
  assert.deepEqual(await first, { code: 0, signal: null });
  assert.deepEqual(client.exitStatus, { code: 0, signal: null });
  assert.equal(pidAlive(client.pid), false);

  const disposable = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  assert.equal(await disposable[Symbol.asyncDispose](), undefined);
  assert.deepEqual(disposable.exitStatus, { code: 0, signal: null });
  assert.equal(disposable.closed, true);
});

test('requests in flight when close() is called are rejected', async () => {
  const client = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  const hanging = client.callTool('hang', {});
  await client.ping();
  await within(5000, 'close', client.close());
  await assert.rejects(hanging, { code: 'CLOSED' });
});

test('a sidecar that ignores shutdown, EOF and SIGTERM is killed after closeTimeoutMs', async () => {
  const client = await SidecarClient.start({
    binaryPath: fakeSidecar(tmp.dir, ['--ignore-shutdown']),
    closeTimeoutMs: 300,
  });
  const t0 = performance.now();
  const exit = await within(5000, 'close of a stubborn sidecar', client.close());
  const ms = performance.now() - t0;
  assert.deepEqual(exit, { code: null, signal: 'SIGKILL' });
  assert.ok(ms >= 250 && ms < 3000, `took ${ms} ms`);
  assert.equal(pidAlive(client.pid), false);
});

for (const mode of ['natural', 'exit']) {
  test(`a program that never closes its client leaves no sidecar or server behind (${mode} end)`, async () => {
    requireBinaries();
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'test-support', 'unclosed.mjs'), mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    // 'natural': the idle client must not keep the program alive.
    const code = await within(10_000, 'the program to end on its own', new Promise((resolve) => child.on('close', resolve)));
    assert.equal(code, 0);
    const { sidecarPid, serverPid } = JSON.parse(out);
    await pollUntil(5000, `sidecar ${sidecarPid} to exit`, () => !pidAlive(sidecarPid));
    await pollUntil(5000, `server ${serverPid} to exit`, () => !pidAlive(serverPid));
  });
}
