// config-trust-results.test.mjs — the methods added with configuration loading and the trust
// gate, against the real binaries: loadServers (servers/load), testServer (servers/test),
// readResult (results/read) of a truncated call, the TRUST_REQUIRED round trip under
// requireTrust, and the new status / tool entry fields.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RPC_CODES, SidecarClient, SidecarError } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, requireBinaries, within } from '../test-support/env.mjs';

const FIXTURE_TOOLS = ['echo', 'fail', 'sleep', 'large', 'environment', 'exit', 'image'];

let client;
before(async () => {
  requireBinaries();
  client = await within(10_000, 'start', SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' }));
});
after(() => client?.close());

test('initialize announces the new capabilities', () => {
  const caps = client.initializeResult.capabilities;
  assert.equal(caps.trust, true);
  assert.equal(caps.resultsRead, true);
  assert.ok(caps.configDialects.includes('claude-desktop'));
  assert.ok(caps.toolFormats.includes('gemini'));
});

test('loadServers: a claude-desktop document adds its server and reports a bad entry', async () => {
  const result = await within(20_000, 'load', client.loadServers({
    dialect: 'claude-desktop',
    json: { mcpServers: { files: { command: FIXTURE_BIN, args: ['--name', 'files'] }, typo: { comand: FIXTURE_BIN } } },
  }));
  assert.equal(result.added.length, 1);
  const [files] = result.added;
  assert.equal(files.name, 'files');
  assert.equal(files.state, 'ready');
  assert.equal(files.source, 'user');
  assert.equal(files.transport, 'stdio');
  assert.equal(files.toolsCount, 7);
  assert.equal(files.restarts, 0);
  assert.equal(files.calls, 0);
  assert.equal(files.errors, 0);
  assert.deepEqual(result.diagnostics.map(({ severity, kind, path, server }) => ({ severity, kind, path, server })), [
    { severity: 'error', kind: 'unknown-field', path: 'mcpServers.typo.comand', server: 'typo' },
  ]);
  assert.match(result.diagnostics[0].message, /did you mean `command`/);
  assert.deepEqual(result.trustRequired, []);

  const { servers } = await client.listServers();
  assert.deepEqual(servers.map((s) => s.name), ['files']);

  // New per-server counters and tool entry fields.
  await client.callTool('mcp__files__echo', { message: 'hi' });
  const after = (await client.listServers()).servers[0];
  assert.equal(after.calls, 1);
  assert.equal(after.errors, 0);
  assert.equal(typeof after.p50LatencyMs, 'number');
  const { tools } = await client.listTools({ format: 'gemini', strict: false, servers: ['files'] });
  assert.equal(tools.length, 7);
  for (const entry of tools) assert.ok(Array.isArray(entry.conversionNotes), `${entry.name} has conversionNotes`);
  const echo = tools.find((t) => t.tool === 'echo');
  assert.equal(echo.definition.parameters.type, 'OBJECT');
  const strict = await client.listTools({ format: 'openai', strict: true, servers: ['files'] });
  assert.equal(strict.tools.find((t) => t.tool === 'echo').definition.function.strict, true);
  const viaGemini = await client.callTool('mcp__files__echo', { message: 'g' }, { format: 'gemini' });
  assert.deepEqual(viaGemini.output, { response: { output: 'g' } });

  await client.removeServer('files');
});

test('loadServers: exactly one of path, json, text (INVALID_PARAMS from the sidecar)', async () => {
  const err = await client.loadServers({ json: { mcpServers: {} }, text: '{}' }).catch((e) => e);
  assert.ok(err instanceof SidecarError);
  assert.equal(err.code, 'INVALID_PARAMS');
});

test('testServer: reports the fixture and its 7 tools, registers nothing', async () => {
  const seen = [];
  const onNotification = (n) => seen.push(n);
  client.on('notification', onNotification);
  try {
    const report = await within(20_000, 'test', client.testServer({ command: FIXTURE_BIN }, { name: 'probe' }));
    assert.equal(report.state, 'ready');
    assert.equal(report.transport, 'stdio');
    assert.equal(report.serverInfo.name, 'mcp-fixture');
    assert.equal(typeof report.protocolVersion, 'string');
    assert.equal(report.toolsCount, 7);
    assert.deepEqual(report.tools, FIXTURE_TOOLS);
    assert.equal(typeof report.timings.startupMs, 'number');
    assert.equal(typeof report.timings.listMs, 'number');
    assert.equal(report.error, undefined);
    assert.deepEqual((await client.listServers()).servers, []);
    assert.deepEqual((await client.listTools()).tools, []);
    assert.deepEqual(seen, [], 'servers/test sends no notifications');
  } finally {
    client.off('notification', onNotification);
  }
  const failed = await client.testServer({ command: FIXTURE_BIN, args: ['--no-such-flag'] });
  assert.equal(failed.state, 'error');
  assert.equal(failed.toolsCount, 0);
  assert.equal(typeof failed.error.data.code, 'string');
});

test('callTool under resultPolicy truncate, then readResult of the rest', async () => {
  const status = await client.addServer('big', { command: FIXTURE_BIN, resultPolicy: 'truncate', maxResultBytes: 4096 });
  assert.equal(status.state, 'ready');
  try {
    const result = await client.callTool('mcp__big__large', { bytes: 20000 });
    const { truncated } = result;
    assert.ok(truncated, 'the result is truncated');
    assert.ok(truncated.originalBytes > 20000);
    assert.equal(truncated.totalBytes, 20000);
    assert.equal(typeof truncated.handle, 'string');
    assert.ok(result.text.length < 4096);
    assert.ok(result.text.includes(`results/read handle=${truncated.handle}`));

    // The cut part, in two reads.
    const half = Math.floor(truncated.length / 2);
    const first = await client.readResult(truncated.handle, { offset: truncated.offset, length: half });
    assert.deepEqual(
      { offset: first.offset, length: first.length, totalBytes: first.totalBytes, eof: first.eof },
      { offset: truncated.offset, length: half, totalBytes: 20000, eof: false },
    );
    const second = await client.readResult(truncated.handle, { offset: truncated.offset + half });
    assert.equal(second.eof, true);
    assert.equal(second.offset + second.length, 20000);
    const cut = first.text + second.text.slice(0, truncated.length - half);
    assert.equal(cut.length, truncated.length);
    assert.match(cut, /^x+$/);

    // The whole text from the start; the head and tail kept in the result match it.
    const whole = await client.readResult(truncated.handle);
    assert.equal(whole.offset, 0);
    assert.equal(whole.length, 20000);
    assert.equal(whole.eof, true);
    const [head] = result.text.split('\n[');
    assert.ok(whole.text.startsWith(head));

    const bad = await client.readResult(truncated.handle, { length: 0 }).catch((e) => e);
    assert.equal(bad.code, 'INVALID_PARAMS');
    assert.equal(bad.data.field, 'length');
    const expired = await client.readResult('r-999').catch((e) => e);
    assert.ok(expired instanceof SidecarError);
    assert.equal(expired.code, 'RESULT_EXPIRED');
    assert.equal(expired.rpcCode, RPC_CODES.RESULT_EXPIRED);
    assert.equal(expired.data.handle, 'r-999');
  } finally {
    await client.removeServer('big');
  }
});

test('requireTrust: TRUST_REQUIRED, then the digest quoted back starts the server', async () => {
  const c = await within(10_000, 'start', SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore', requireTrust: true }));
  try {
    const config = { command: FIXTURE_BIN, env: { API_TOKEN: 'sk-node-secret-0123', LEVEL: '1' } };
    const err = await c.addServer('fx', config).catch((e) => e);
    assert.ok(err instanceof SidecarError);
    assert.equal(err.code, 'TRUST_REQUIRED');
    assert.equal(err.rpcCode, -32014);
    assert.equal(err.rpcCode, RPC_CODES.TRUST_REQUIRED);
    assert.equal(err.data.server, 'fx');
    assert.match(err.data.digest, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(err.data.envNames, ['API_TOKEN', 'LEVEL']);
    assert.equal(err.data.source, 'host');
    assert.ok(!JSON.stringify(err.data).includes('sk-node-secret-0123'), 'secret values are never shown');
    assert.deepEqual((await c.listServers()).servers, [], 'nothing registered');

    const wrong = await c.addServer('fx', config, { trust: `sha256:${'0'.repeat(64)}` }).catch((e) => e);
    assert.equal(wrong.code, 'TRUST_REQUIRED');
    const untested = await c.testServer(config, { name: 'fx' }).catch((e) => e);
    assert.equal(untested.code, 'TRUST_REQUIRED');

    const report = await c.testServer(config, { name: 'fx', trust: err.data.digest });
    assert.equal(report.state, 'ready');
    const status = await c.addServer('fx', config, { trust: err.data.digest });
    assert.equal(status.state, 'ready');
    assert.equal(status.source, 'host');
    assert.equal(status.toolsCount, 7);

    // servers/load holds an untrusted server back instead of failing; its digest admits it.
    const json = { mcpServers: { other: { command: FIXTURE_BIN } } };
    const held = await c.loadServers({ json });
    assert.deepEqual(held.added, []);
    assert.equal(held.trustRequired.length, 1);
    assert.equal(held.trustRequired[0].name, 'other');
    assert.equal(held.trustRequired[0].source, 'user');
    const loaded = await c.loadServers({ json, trust: { other: held.trustRequired[0].digest } });
    assert.deepEqual(loaded.added.map((s) => [s.name, s.state]), [['other', 'ready']]);
    assert.deepEqual(loaded.trustRequired, []);
  } finally {
    await within(20_000, 'close', c.close());
  }
});
