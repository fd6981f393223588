// sidecar-logs.test.mjs — the sidecar's own logs (its stderr): by default only warnings and errors,
// read as JSON lines and handed to `onLog` and the `'log'` event, or, with neither, to
// process.emitWarning — never the sidecar's INFO lines in the host's stderr; the `logLevel` option;
// both JSON shapes of a line; the flags added next to the caller's own.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { SidecarClient } from '../src/index.js';
import { logFlags, parseLogLine } from '../src/sidecar-logs.js';
import { FIXTURE_BIN, PACKAGE_ROOT, SIDECAR_BIN, pidAlive, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

const MISSING = { command: '/nonexistent/mcp-server' };
const missingWarning = (r) => r.level === 'warn' && r.fields.server === 'missing' && /start failed: server `missing`/.test(r.message);

test('a client started without log options writes no INFO line to the host\'s stderr, and the warning once', async () => {
  requireBinaries();
  const { stderr } = await promisify(execFile)(process.execPath, [join(PACKAGE_ROOT, 'test-support', 'default-logs.mjs')], {
    env: { ...process.env, MCP_SIDECAR_BIN: SIDECAR_BIN, MCP_FIXTURE_BIN: FIXTURE_BIN, MCP_SIDECAR_LOG: '', NODE_OPTIONS: '' },
    timeout: 30_000,
  });
  assert.doesNotMatch(stderr, /INFO|host initialized|server ready/, `the sidecar's info lines reached the host's stderr:\n${stderr}`);
  const warnings = stderr.split('\n').filter((line) => line.includes('McpSidecarWarning'));
  assert.equal(warnings.length, 1, stderr);
  assert.match(warnings[0], /\[WARN\] McpSidecarWarning: start failed: server `missing`: command `\/nonexistent\/mcp-server` not found/);
});

test('onLog gets the warning of a server that cannot start, and no process warning is emitted', async () => {
  requireBinaries();
  const records = [];
  const processWarnings = [];
  const onWarning = (w) => processWarnings.push(w);
  process.on('warning', onWarning);
  try {
    const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, onLog: (r) => records.push(r) });
    try {
      const status = await client.addServer('missing', MISSING);
      assert.equal(status.state, 'error');
    } finally {
      await client.close(); // the sidecar's stderr has been read to its end once it has exited
    }
  } finally {
    process.off('warning', onWarning);
  }
  const warning = records.find(missingWarning);
  assert.ok(warning, `no warning about the server in ${JSON.stringify(records)}`);
  assert.match(warning.timestamp, /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual(records.filter((r) => r.level === 'info' || r.level === 'debug'), []);
  assert.deepEqual(processWarnings.filter((w) => w.name === 'McpSidecarWarning'), []);
});

test('the log event gets the records once a listener is attached; logLevel info lets info through', async () => {
  requireBinaries();
  const early = [];
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, logLevel: 'info', onLog: (r) => early.push(r) });
  const events = [];
  client.on('log', (r) => events.push(r));
  try {
    await client.addServer('fx', { command: FIXTURE_BIN });
    await client.addServer('missing', MISSING);
  } finally {
    await client.close();
  }
  assert.ok(early.some((r) => r.level === 'info' && r.message === 'host initialized'), JSON.stringify(early));
  assert.ok(events.some((r) => r.level === 'info' && r.message === 'server ready' && r.fields.server === 'fx'), JSON.stringify(events));
  assert.ok(events.some(missingWarning), JSON.stringify(events));
});

test('a sidecar that dies leaves the tail of its log lines, as text, in SIDECAR_EXITED', async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, onLog: () => {} });
  await client.addServer('missing', MISSING);
  await client.addServer('fx', { command: FIXTURE_BIN });
  const sleeping = client.callTool('mcp__fx__sleep', { ms: 30_000 }).catch((e) => e);
  await client.callTool('mcp__fx__echo', { message: 'the sleep has reached the fixture' });
  process.kill(client.pid, 'SIGKILL');
  const err = await sleeping;
  assert.equal(err.code, 'SIDECAR_EXITED');
  assert.match(err.data.stderrTail, /^WARN start failed: server `missing`/m);
});

test('a sidecar that exits while a descendant holds its stderr pipe open still ends the client', async () => {
  // The "sidecar" leaves a process behind that keeps its stdout and stderr open for 30 s.
  const script = join(tmp.dir, 'leaky-sidecar.sh');
  const pidFile = join(tmp.dir, 'leaked.pid');
  writeFileSync(script, `#!/bin/sh\nsleep 30 &\necho $! > '${pidFile}'\nexit 3\n`);
  chmodSync(script, 0o755);
  try {
    const err = await within(10_000, 'start to fail', SidecarClient.start({ binaryPath: script, startTimeoutMs: Infinity }).catch((e) => e));
    assert.equal(err.code, 'SIDECAR_EXITED');
    assert.deepEqual(err.data.exit, { code: 3, signal: null });
  } finally {
    const leaked = Number(readFileSync(pidFile, 'utf8'));
    if (pidAlive(leaked)) process.kill(leaked, 'SIGKILL');
  }
});

test('a line in either JSON shape, or not JSON at all, is one record', () => {
  // Today's shape: the message under `fields`.
  assert.deepEqual(
    parseLogLine('{"timestamp":"2026-01-01T00:00:00Z","level":"WARN","fields":{"message":"start failed","server":"s","generation":1}}'),
    { level: 'warn', message: 'start failed', fields: { server: 's', generation: 1 }, timestamp: '2026-01-01T00:00:00Z' },
  );
  // The flat shape: message, target, the event's and its spans' fields at the top level.
  assert.deepEqual(
    parseLogLine('{"timestamp":"t","level":"ERROR","target":"mcp_sidecar::supervisor","message":"gone","server":"s","call":7}'),
    { level: 'error', message: 'gone', fields: { server: 's', call: 7 }, timestamp: 't', target: 'mcp_sidecar::supervisor' },
  );
  // A span list: its fields too, the event's own winning.
  assert.deepEqual(
    parseLogLine('{"level":"INFO","fields":{"message":"m","server":"inner"},"spans":[{"name":"serve","server":"outer","host":"h"}]}').fields,
    { server: 'inner', host: 'h' },
  );
  // A panic message is never dropped.
  assert.deepEqual(parseLogLine("thread 'main' panicked at src/main.rs:1:1"), {
    level: 'error', message: "thread 'main' panicked at src/main.rs:1:1", fields: {},
  });
});

test('the level and format flags follow the caller\'s args, logLevel and MCP_SIDECAR_LOG', () => {
  assert.deepEqual(logFlags({ args: [], env: {}, structured: true }), ['--log', 'warn', '--log-format', 'json']);
  assert.deepEqual(logFlags({ args: [], env: {}, logLevel: 'debug', structured: false }), ['--log', 'debug']);
  assert.deepEqual(logFlags({ args: [], env: {}, logLevel: 'Warning', structured: false }), ['--log', 'warn']);
  assert.deepEqual(logFlags({ args: [], env: { MCP_SIDECAR_LOG: 'info' }, structured: true }), ['--log-format', 'json']);
  assert.deepEqual(logFlags({ args: [], env: { MCP_SIDECAR_LOG: 'info' }, logLevel: 'error', structured: true }), ['--log', 'error', '--log-format', 'json']);
  assert.deepEqual(logFlags({ args: ['--log', 'trace'], env: {}, logLevel: 'error', structured: true }), ['--log-format', 'json']);
  assert.deepEqual(logFlags({ args: ['--log=trace', '--log-format=text'], env: {}, structured: true }), []);
  assert.throws(() => logFlags({ args: [], env: {}, logLevel: '' }), TypeError);
});

test('bad log options are a TypeError before anything is spawned', async () => {
  const noBinary = { binaryPath: '/nonexistent/mcp-sidecar' }; // BINARY_NOT_FOUND if it got that far
  await assert.rejects(SidecarClient.start({ ...noBinary, onLog: 'yes' }), TypeError);
  await assert.rejects(SidecarClient.start({ ...noBinary, onLog: () => {}, stderr: 'inherit' }), TypeError);
  await assert.rejects(SidecarClient.start({ ...noBinary, stderr: 'loud' }), TypeError);
  await assert.rejects(SidecarClient.start({ ...noBinary, logLevel: 3 }), TypeError);
});
