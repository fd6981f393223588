// errors.test.mjs — SidecarError: its fields (code, message, data, rpcCode) for errors from the
// sidecar, from a failed server (data.stderrTail) and from the client itself (closed, sidecar
// exited, over-long or non-JSON output), and the numeric fallback for an unknown data.code.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CLIENT_CODES, RPC_CODES, SidecarClient, SidecarError } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, fakeSidecar, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

let client;
before(async () => {
  requireBinaries();
  client = await within(10_000, 'start', SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' }));
  await client.addServer('fx', { command: FIXTURE_BIN, args: ['--stderr-line', 'fixture-says-goodbye'] });
});
after(() => client?.close());

test('fromRpc: data.code wins, the numeric code is the fallback, data defaults to {}', () => {
  const e = SidecarError.fromRpc({ code: -32012, message: 'no server `x`', data: { code: 'SERVER_NOT_FOUND', server: 'x' } });
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'SidecarError');
  assert.equal(e.code, 'SERVER_NOT_FOUND');
  assert.equal(e.rpcCode, -32012);
  assert.equal(e.message, 'no server `x`');
  assert.deepEqual(e.data, { code: 'SERVER_NOT_FOUND', server: 'x' });
  assert.equal(SidecarError.fromRpc({ code: -32022, message: 'm' }).code, 'TOOL_TIMEOUT');
  assert.deepEqual(SidecarError.fromRpc({ code: -32022, message: 'm' }).data, {});
  assert.equal(SidecarError.fromRpc({ code: -32099, message: 'm' }).code, 'RPC_-32099');
  assert.equal(SidecarError.fromRpc({ code: -32600, message: 'm' }).code, 'INVALID_REQUEST');
  assert.equal(RPC_CODES.CANCELLED, -32800);
  assert.ok(CLIENT_CODES.includes('SIDECAR_EXITED'));
});

test('INVALID_ARGUMENTS carries rpcCode and the violations', async () => {
  const err = await client.callTool('mcp__fx__echo', { message: 5 }).catch((e) => e);
  assert.ok(err instanceof SidecarError);
  assert.equal(err.code, 'INVALID_ARGUMENTS');
  assert.equal(err.rpcCode, -32021);
  assert.match(err.message, /echo/);
  assert.equal(err.data.server, 'fx');
  assert.equal(err.data.tool, 'echo');
  assert.equal(err.data.name, 'mcp__fx__echo');
  assert.equal(err.data.violations[0].path, '/message');
});

test('TOOL_TIMEOUT names the setting and the limit', async () => {
  const err = await client.callTool('mcp__fx__sleep', { ms: 5000 }, { timeoutMs: 100 }).catch((e) => e);
  assert.equal(err.code, 'TOOL_TIMEOUT');
  assert.equal(err.rpcCode, -32022);
  assert.equal(err.data.setting, 'timeoutMs');
  assert.equal(err.data.limit, 100);
});

test('a server that dies during a call: SERVER_UNAVAILABLE with data.stderrTail', async () => {
  const err = await client.callTool('mcp__fx__exit', { code: 7 }).catch((e) => e);
  assert.equal(err.code, 'SERVER_UNAVAILABLE');
  assert.equal(err.rpcCode, -32013);
  assert.match(err.data.stderrTail, /fixture-says-goodbye/);
  const { servers } = await client.listServers();
  assert.equal(servers[0].state, 'unhealthy');
  assert.equal(servers[0].lastError.data.code, 'SERVER_UNAVAILABLE');
});

test('a bad initialize option fails start() with the sidecar error', async () => {
  await assert.rejects(
    SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore', nameTemplate: 'no-tool-placeholder' }),
    (err) => err instanceof SidecarError && err.code === 'INVALID_PARAMS' && err.data.field === 'nameTemplate',
  );
  await assert.rejects(SidecarClient.start({ binaryPath: SIDECAR_BIN, toolFromat: 'openai' }), /unknown option "toolFromat"/);
});

test('requests after close() reject with CLOSED (no rpcCode)', async () => {
  const c = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  await c.close();
  assert.equal(c.closed, true);
  const err = await c.ping().catch((e) => e);
  assert.ok(err instanceof SidecarError);
  assert.equal(err.code, 'CLOSED');
  assert.equal(err.rpcCode, undefined);
});

test('the sidecar exiting under a request: SIDECAR_EXITED with exit status and stderr tail', async () => {
  const c = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir), stderr: () => {} });
  const err = await within(5000, 'crash', c.callTool('crash', { code: 3, stderr: 'fake sidecar panicked' }).catch((e) => e));
  assert.equal(err.code, 'SIDECAR_EXITED');
  assert.deepEqual(err.data.exit, { code: 3, signal: null });
  assert.match(err.data.stderrTail, /fake sidecar panicked/);
  assert.equal((await c.ping().catch((e) => e)).code, 'SIDECAR_EXITED');
  assert.deepEqual(await c.close(), { code: 3, signal: null });
});

test('a stdout line over maxLineBytes fails the client clearly (LINE_TOO_LONG)', async () => {
  const c = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir), maxLineBytes: 4096 });
  const exited = new Promise((resolve) => c.once('exit', resolve));
  const pending = c.callTool('hang', {});
  const err = await within(5000, 'overflow', c.callTool('bigline', { bytes: 100_000 }).catch((e) => e));
  assert.equal(err.code, 'LINE_TOO_LONG');
  assert.equal(err.data.limit, 4096);
  assert.match(err.message, /maxLineBytes \(4096 bytes/);
  assert.equal((await pending.catch((e) => e)).code, 'LINE_TOO_LONG');
  await within(5000, 'sidecar killed', exited);
  assert.equal((await c.ping().catch((e) => e)).code, 'LINE_TOO_LONG');
});

test('a non-JSON stdout line fails the client clearly (INVALID_OUTPUT)', async () => {
  const c = await SidecarClient.start({ binaryPath: fakeSidecar(tmp.dir) });
  const err = await within(5000, 'garbage', c.callTool('garbage', {}).catch((e) => e));
  assert.equal(err.code, 'INVALID_OUTPUT');
  assert.match(err.message, /this is not json/);
  await within(5000, 'close', c.close());
});
