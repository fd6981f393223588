// scenarios.test.mjs — runs every scenario of proto/scenarios/scenarios.json through the typed
// API, each in a fresh sidecar; an unknown op or field fails the run (scenarios/README.md).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SidecarClient, SidecarError } from '../src/index.js';
import {
  FIXTURE_BIN, SCENARIOS_PATH, SIDECAR_BIN, pidAlive, pollUntil, requireBinaries, within,
} from '../test-support/env.mjs';
import { mismatch } from '../test-support/match.mjs';

const FILE = JSON.parse(readFileSync(SCENARIOS_PATH, 'utf8'));

// Fields each op may carry besides `op`; `expect`/`expectError` where the op yields a result.
const RESULT = ['expect', 'expectError'];
const OPS = {
  addServer: ['name', 'fixtureArgs', 'config', 'wait', ...RESULT],
  removeServer: ['name', ...RESULT],
  restartServer: ['name', ...RESULT],
  listServers: [...RESULT],
  listTools: ['format', 'servers', 'expectCount', ...RESULT],
  callTool: ['tool', 'arguments', 'timeoutMs', ...RESULT],
  callConcurrently: ['tool', 'count', 'message'],
  cancelCall: ['tool', 'arguments'],
  expectNotification: ['method', 'expect'],
  rememberPid: ['server', 'as'],
  shutdown: [],
  expectDead: ['pids'],
};
const SCENARIO_KEYS = ['name', 'initialize', 'steps'];
const INITIALIZE_KEYS = ['toolFormat', 'nameTemplate', 'maxNameLength'];

function unknownKeys(object, known) {
  return Object.keys(object).filter((key) => !known.includes(key));
}

/** Every problem that makes the file unrunnable by this client (empty when fine). */
function validate(file) {
  const problems = [];
  if (file.version !== 1) problems.push(`version ${file.version} (this runner knows 1)`);
  problems.push(...unknownKeys(file, ['version', 'scenarios']).map((k) => `unknown top-level field ${k}`));
  for (const scenario of file.scenarios ?? []) {
    const where = `scenario ${scenario.name}`;
    problems.push(...unknownKeys(scenario, SCENARIO_KEYS).map((k) => `${where}: unknown field ${k}`));
    problems.push(...unknownKeys(scenario.initialize ?? {}, INITIALIZE_KEYS).map((k) => `${where}: unknown initialize field ${k}`));
    (scenario.steps ?? []).forEach((step, i) => {
      const known = OPS[step.op];
      if (known === undefined) problems.push(`${where} step ${i}: unknown op ${step.op}`);
      else problems.push(...unknownKeys(step, ['op', ...known]).map((k) => `${where} step ${i} (${step.op}): unknown field ${k}`));
    });
  }
  return problems;
}

function check(pattern, actual, what) {
  if (pattern === undefined) return;
  const m = mismatch(pattern, actual);
  assert.equal(m, null, `${what}: ${m}\nactual: ${JSON.stringify(actual, null, 1)}`);
}

class Run {
  constructor(client) {
    this.client = client;
    this.pids = new Map();
    this.seen = [];
    this.wakers = new Set();
    client.on('notification', (n) => {
      this.seen.push(n);
      for (const wake of this.wakers) wake();
    });
  }

  async waitNotification(method, pattern, ms) {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.seen.find((n) => n.method === method && mismatch(pattern ?? {}, n.params) === null);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) {
        const got = this.seen.filter((n) => n.method === method).map((n) => JSON.stringify(n.params));
        assert.fail(`no ${method} matching ${JSON.stringify(pattern)} within ${ms} ms; got:\n${got.join('\n')}`);
      }
      await new Promise((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          this?.wakers?.delete(done);
          resolve();
        }
        this.wakers.add(done);
      });
    }
  }

  /** Runs one step; returns its result for `expect`/`expectError` ops. */
  async step(step) {
    const { client } = this;
    switch (step.op) {
      case 'addServer':
        return client.addServer(
          step.name,
          { command: FIXTURE_BIN, args: step.fixtureArgs ?? [], ...(step.config ?? {}) },
          { wait: step.wait },
        );
      case 'removeServer':
        return client.removeServer(step.name);
      case 'restartServer':
        return client.restartServer(step.name);
      case 'listServers':
        return client.listServers();
      case 'listTools': {
        const result = await client.listTools({ format: step.format, servers: step.servers });
        if (step.expectCount !== undefined) {
          assert.equal(result.tools.length, step.expectCount, `listTools: expected ${step.expectCount} tools`);
        }
        return result;
      }
      case 'callTool':
        return client.callTool(step.tool, step.arguments, { timeoutMs: step.timeoutMs });
      case 'callConcurrently': {
        const messages = Array.from({ length: step.count }, (_, i) => `${step.message}-${i}`);
        const results = await Promise.all(messages.map((message) => client.callTool(step.tool, { message })));
        results.forEach((result, i) => assert.equal(result.text, messages[i], `call ${i} got another call's result`));
        return undefined;
      }
      case 'cancelCall': {
        const controller = new AbortController();
        const started = Date.now();
        const call = client.callTool(step.tool, step.arguments, { signal: controller.signal });
        controller.abort();
        await within(2000, 'cancelled call to reject', assert.rejects(call, (err) => {
          assert.ok(err instanceof SidecarError, `expected SidecarError, got ${err}`);
          assert.equal(err.code, 'CANCELLED');
          return true;
        }));
        assert.ok(Date.now() - started < 2000);
        return undefined;
      }
      case 'expectNotification':
        await this.waitNotification(step.method, step.expect, 10_000);
        return undefined;
      case 'rememberPid': {
        const { servers } = await client.listServers();
        const status = servers.find((s) => s.name === step.server);
        assert.ok(Number.isInteger(status?.pid), `server ${step.server} has no pid: ${JSON.stringify(status)}`);
        this.pids.set(step.as, status.pid);
        return undefined;
      }
      case 'shutdown': {
        const exit = await within(20_000, 'sidecar exit after close()', client.close());
        assert.deepEqual(exit, { code: 0, signal: null }, 'the sidecar should exit 0');
        return undefined;
      }
      case 'expectDead':
        for (const name of step.pids) {
          const pid = this.pids.get(name);
          assert.ok(pid !== undefined, `no pid remembered as ${name}`);
          await pollUntil(5000, `pid ${pid} (${name}) to be gone`, () => !pidAlive(pid));
        }
        return undefined;
      default:
        throw new Error(`unknown op ${step.op}`);
    }
  }
}

test('the runner rejects unknown ops and fields, and the matcher follows the README', () => {
  const bad = { version: 1, scenarios: [{ name: 'x', initialize: { colour: 1 }, extra: 1, steps: [
    { op: 'teleport' }, { op: 'callTool', tool: 't', arguments: {}, retries: 3 },
  ] }] };
  assert.deepEqual(validate(bad), [
    'scenario x: unknown field extra',
    'scenario x: unknown initialize field colour',
    'scenario x step 0: unknown op teleport',
    'scenario x step 1 (callTool): unknown field retries',
  ]);
  assert.equal(mismatch({ a: { b: [1, '<any>'] } }, { a: { b: [1, null], c: 2 }, d: 3 }), null);
  assert.equal(mismatch({ a: '<any>' }, {}), '$.a: missing');
  assert.equal(mismatch([1], [1, 2]), '$: expected 1 elements, got 2');
  assert.equal(mismatch('<contains:ell>', 'hello'), null);
  assert.match(mismatch('<contains:x>', 'hello'), /containing "x"/);
  assert.equal(mismatch({}, {}), null);
  assert.match(mismatch({ n: 1 }, { n: '1' }), /expected 1, got "1"/);
});

test('scenario file uses only ops and fields this client knows', () => {
  assert.deepEqual(validate(FILE), []);
  assert.ok(FILE.scenarios.length > 0);
});

for (const scenario of FILE.scenarios) {
  test(`scenario ${scenario.name}`, { timeout: 60_000 }, async () => {
    requireBinaries();
    const problems = validate({ version: FILE.version, scenarios: [scenario] });
    assert.deepEqual(problems, [], 'unknown ops or fields');
    const stderr = [];
    const client = await within(10_000, 'start', SidecarClient.start({
      binaryPath: SIDECAR_BIN,
      stderr: (line) => stderr.push(line),
      ...scenario.initialize,
    }));
    const run = new Run(client);
    try {
      for (const [i, step] of scenario.steps.entries()) {
        const what = `step ${i} (${step.op})`;
        const pending = within(30_000, what, run.step(step));
        if (step.expectError !== undefined) {
          const err = await pending.then(
            (result) => assert.fail(`${what}: expected ${step.expectError}, got ${JSON.stringify(result)}`),
            (e) => e,
          );
          assert.ok(err instanceof SidecarError, `${what}: expected SidecarError, got ${err?.stack ?? err}`);
          assert.equal(err.code, step.expectError, `${what}: ${err.message}`);
        } else {
          check(step.op === 'expectNotification' ? undefined : step.expect, await pending, what);
        }
      }
    } catch (err) {
      err.message += `\nsidecar stderr (last lines):\n${stderr.slice(-20).join('\n')}`;
      throw err;
    } finally {
      await within(20_000, 'close', client.close());
    }
  });
}
