// hostile.test.mjs — runs every scenario of proto/scenarios/hostile/hostile.json: the client
// against a fake sidecar that misbehaves in one way each time; every step must settle within
// the file's guard with the outcome it names (a hang fails the step, not the whole run).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SidecarClient, SidecarError } from '../src/index.js';
import { REPO_ROOT, within } from '../test-support/env.mjs';
import { mismatch } from '../test-support/match.mjs';

const DIR = join(REPO_ROOT, 'proto', 'scenarios', 'hostile');
const FILE = JSON.parse(readFileSync(join(DIR, 'hostile.json'), 'utf8'));
assert.equal(FILE.version, 1);
const SIDECAR = join(DIR, FILE.sidecar);
const GUARD = FILE.stepGuardMs;

const SCENARIO_FIELDS = new Set(['name', 'mode', 'args', 'start', 'steps']);
const START_FIELDS = new Set(['startTimeoutMs', 'maxLineBytes', 'closeTimeoutMs', 'expectError', 'messageContains']);
const STEP_FIELDS = { listServers: ['expect', 'expectError', 'messageContains'], close: ['expectExit'] };

function checkError(what, err, expect) {
  const code = FILE.codes[expect.expectError].node;
  assert.ok(err instanceof SidecarError, `${what}: want ${code}, got ${err}`);
  assert.equal(err.code, code, `${what}: ${err.message}`);
  assert.ok(err.message.includes(expect.messageContains ?? ''), `${what}: ${err.message} lacks ${expect.messageContains}`);
}

for (const scenario of FILE.scenarios) {
  test(`hostile sidecar: ${scenario.name}`, async () => {
    for (const key of Object.keys(scenario)) assert.ok(SCENARIO_FIELDS.has(key), `unknown field ${key}`);
    const start = scenario.start ?? {};
    for (const key of Object.keys(start)) assert.ok(START_FIELDS.has(key), `unknown start field ${key}`);
    const options = {
      binaryPath: SIDECAR,
      args: [scenario.mode, ...(scenario.args ?? [])],
      startTimeoutMs: start.startTimeoutMs ?? Infinity, // no bound unless the scenario gives one
    };
    if (start.maxLineBytes !== undefined) options.maxLineBytes = start.maxLineBytes;
    if (start.closeTimeoutMs !== undefined) options.closeTimeoutMs = start.closeTimeoutMs;
    const started = await within(GUARD, 'start', SidecarClient.start(options).then(
      (client) => ({ client }),
      (error) => ({ error }),
    ));
    if (start.expectError !== undefined) {
      checkError('start', started.error, start);
      return;
    }
    assert.equal(started.error, undefined, `start: ${started.error}`);
    const { client } = started;
    try {
      for (const [i, step] of (scenario.steps ?? []).entries()) {
        const what = `step ${i} (${step.op})`;
        for (const key of Object.keys(step)) {
          assert.ok(key === 'op' || STEP_FIELDS[step.op].includes(key), `${what}: unknown field ${key}`);
        }
        if (step.op === 'listServers') {
          const outcome = await within(GUARD, what, client.listServers().then(
            (result) => ({ result }),
            (error) => ({ error }),
          ));
          if (step.expectError !== undefined) checkError(what, outcome.error, step);
          else {
            assert.equal(outcome.error, undefined, `${what}: ${outcome.error}`);
            assert.equal(mismatch(step.expect, outcome.result), null, what);
          }
        } else {
          const exit = await within(GUARD, what, client.close());
          assert.deepEqual(exit, { code: step.expectExit, signal: null }, what);
        }
      }
    } finally {
      await client.close({ timeoutMs: 1000 });
    }
  });
}
