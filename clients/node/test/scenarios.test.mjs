// scenarios.test.mjs — runs every scenario of proto/scenarios/scenarios.json through the typed
// API, each in a fresh sidecar; an unknown op or field fails the run (scenarios/README.md).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { HandlerError, SidecarClient, SidecarError } from '../src/index.js';
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
  callTool: ['tool', 'arguments', 'timeoutMs', 'progress', 'expectLastProgress', ...RESULT],
  callConcurrently: ['tool', 'count', 'message'],
  cancelCall: ['tool', 'arguments'],
  expectNotification: ['method', 'expect'],
  rememberPid: ['server', 'as'],
  shutdown: [],
  expectDead: ['pids'],
  listResources: ['server', ...RESULT],
  listResourceTemplates: ['server', ...RESULT],
  listPrompts: ['server', ...RESULT],
  readResource: ['server', 'uri', ...RESULT],
  subscribeResource: ['server', 'uri', ...RESULT],
  unsubscribeResource: ['server', 'uri', ...RESULT],
  getPrompt: ['server', 'name', 'arguments', ...RESULT],
  complete: ['params', ...RESULT],
  setLogLevel: ['level', 'server', ...RESULT],
  expectLog: ['expect'],
  expectNoLog: ['expect'],
  searchTools: ['query', 'limit', ...RESULT],
  serverStats: [...RESULT],
  setRoots: ['roots'],
  expectHandled: ['method', 'expect', 'count'],
};
// Ops whose `expect` is a pattern they wait for or check themselves, not a result's.
const WAITING_OPS = new Set(['expectNotification', 'expectLog', 'expectNoLog', 'expectHandled']);
const SCENARIO_KEYS = ['name', 'initialize', 'handlers', 'steps'];
const HANDLER_KEYS = ['answer', 'error'];
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
    for (const [method, spec] of Object.entries(scenario.handlers ?? {})) {
      if (!['sampling/createMessage', 'elicitation/create', 'roots/list'].includes(method)) {
        problems.push(`${where}: unknown handler ${method}`);
      }
      problems.push(...unknownKeys(spec, HANDLER_KEYS).map((k) => `${where}: handler ${method}: unknown field ${k}`));
    }
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
  constructor() {
    this.client = null;
    this.pids = new Map();
    this.seen = [];
    this.logs = [];
    this.handled = new Map(); // method -> [params of each call]
    this.wakers = new Set();
  }

  /**
   * Start options for the scenario's `handlers`: one async handler per method, registered through
   * the client's own API, that records its params and answers the scenario's result or error.
   * `roots/list` answers the client's current roots, which start as the scenario's and change
   * with setRoots.
   */
  handlerOptions(handlers = {}) {
    const options = { handlers: {} };
    for (const [method, spec] of Object.entries(handlers)) {
      this.handled.set(method, []);
      options.handlers[method] = async (params, { client }) => {
        this.handled.get(method).push(params);
        this.wake();
        if (spec.error !== undefined) throw new HandlerError(spec.error.code, spec.error.message, { data: spec.error.data });
        return method === 'roots/list' ? { roots: client.roots } : spec.answer;
      };
      if (method === 'roots/list') options.roots = spec.answer?.roots ?? [];
    }
    return options;
  }

  attach(client) {
    this.client = client;
    client.on('notification', (n) => {
      this.seen.push(n);
      this.wake();
    });
    // The log stream, read from the start of the scenario (its events since then count).
    (async () => {
      for await (const log of client.logs()) {
        this.logs.push(log);
        this.wake();
      }
    })();
  }

  wake() {
    for (const wake of this.wakers) wake();
  }

  /** Waits (≤ `ms`) until `find()` returns something; the wait is woken by each new event. */
  async waitFor(ms, find, failure) {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = find();
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) assert.fail(failure());
      await new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.wakers.add(done);
      });
    }
  }

  waitNotification(method, pattern, ms) {
    return this.waitFor(
      ms,
      () => this.seen.find((n) => n.method === method && mismatch(pattern ?? {}, n.params) === null),
      () => {
        const got = this.seen.filter((n) => n.method === method).map((n) => JSON.stringify(n.params));
        return `no ${method} matching ${JSON.stringify(pattern)} within ${ms} ms; got:\n${got.join('\n')}`;
      },
    );
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
      case 'callTool': {
        if (!step.progress) return client.callTool(step.tool, step.arguments, { timeoutMs: step.timeoutMs });
        const updates = [];
        const result = await client.callTool(step.tool, step.arguments, {
          timeoutMs: step.timeoutMs,
          onProgress: (update) => updates.push(update),
        });
        assert.ok(updates.length > 0, 'the progress callback was not called before the result');
        check(step.expectLastProgress, updates.at(-1), 'last progress');
        return result;
      }
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
          // The platform's way (`fetch`): the signal's reason, here a DOMException AbortError.
          assert.equal(err, controller.signal.reason, `expected the signal's reason, got ${err}`);
          assert.equal(err.name, 'AbortError');
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
      case 'listResources':
        return client.listResources({ server: step.server });
      case 'listResourceTemplates':
        return client.listResourceTemplates({ server: step.server });
      case 'listPrompts':
        return client.listPrompts({ server: step.server });
      case 'readResource':
        return client.readResource(step.server, step.uri);
      case 'subscribeResource':
        return client.subscribeResource(step.server, step.uri);
      case 'unsubscribeResource':
        return client.unsubscribeResource(step.server, step.uri);
      case 'getPrompt':
        return client.getPrompt(step.server, step.name, step.arguments);
      case 'complete': {
        const { server, ref, argument, context, ...rest } = step.params;
        assert.deepEqual(Object.keys(rest), [], 'complete: unknown params');
        return client.complete(server, ref, argument, { context });
      }
      case 'setLogLevel':
        return client.setLogLevel(step.level, { server: step.server });
      case 'expectLog':
        await this.waitFor(
          10_000,
          () => this.logs.find((log) => mismatch(step.expect, log) === null),
          () => `no server log matching ${JSON.stringify(step.expect)} within 10 s; got:\n${this.logs.map((l) => JSON.stringify(l)).join('\n')}`,
        );
        return undefined;
      case 'expectNoLog': {
        const hit = this.logs.find((log) => mismatch(step.expect, log) === null);
        assert.equal(hit, undefined, `a server log matches ${JSON.stringify(step.expect)}`);
        return undefined;
      }
      case 'searchTools':
        return client.searchTools(step.query, { limit: step.limit });
      case 'serverStats':
        return client.serverStats();
      case 'setRoots':
        client.setRoots(step.roots);
        return undefined;
      case 'expectHandled': {
        const count = step.count ?? 1;
        const calls = this.handled.get(step.method);
        assert.ok(calls !== undefined, `the scenario has no handler for ${step.method}`);
        await this.waitFor(10_000, () => calls.length >= count, () => `${step.method} handled ${calls.length} times within 10 s, expected ${count}`);
        check(step.expect, calls[count - 1], `params of ${step.method} call ${count}`);
        return undefined;
      }
      default:
        throw new Error(`unknown op ${step.op}`);
    }
  }
}

test('the runner rejects unknown ops and fields, and the matcher follows the README', () => {
  const bad = { version: 1, scenarios: [{ name: 'x', initialize: { colour: 1 }, extra: 1, handlers: { 'mind/read': { answer: {}, delay: 1 } }, steps: [
    { op: 'teleport' }, { op: 'callTool', tool: 't', arguments: {}, retries: 3 },
  ] }] };
  assert.deepEqual(validate(bad), [
    'scenario x: unknown field extra',
    'scenario x: unknown initialize field colour',
    'scenario x: unknown handler mind/read',
    'scenario x: handler mind/read: unknown field delay',
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
    const run = new Run();
    const client = await within(10_000, 'start', SidecarClient.start({
      binaryPath: SIDECAR_BIN,
      stderr: (line) => stderr.push(line),
      ...scenario.initialize,
      ...run.handlerOptions(scenario.handlers),
    }));
    run.attach(client);
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
          check(WAITING_OPS.has(step.op) ? undefined : step.expect, await pending, what);
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
