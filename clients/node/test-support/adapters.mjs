// adapters.mjs — owns what the framework adapter tests (test-adapters/) share: a client of the real
// sidecar with the fixture server `fx` (with its `--client-requests` tools, `ask` for sampling and
// `progress`, and its `--surface` resources), and the 1x1 PNG the fixture's `image` tool returns.
// Lives outside test-adapters/ so `node --test test-adapters/` does not run it as a test file.

import assert from 'node:assert/strict';
import { start } from 'mcp-sidecar';
import { FIXTURE_BIN, SIDECAR_BIN, requireBinaries, within } from './env.mjs';

/** The base64 PNG of the fixture's `image` tool (fixtures/src/tools.rs). */
export const FIXTURE_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A client of the real sidecar running the fixture as server `fx`; close it when done. */
export async function fixtureClient(options = {}) {
  requireBinaries();
  const client = await start({ binaryPath: SIDECAR_BIN, stderr: 'ignore', ...options });
  const status = await client.addServer('fx', { command: FIXTURE_BIN, args: ['--client-requests', '--surface'] });
  assert.equal(status.state, 'ready', JSON.stringify(status.lastError));
  return client;
}

/**
 * Records the client's `callTool` calls: each as `{name, signal, outcome}`, `outcome` a promise of
 * the call's rejection (or `null` if it succeeded). The client rejects a call with its signal's
 * reason exactly when the signal aborted it, having sent the sidecar `notifications/cancelled` (the
 * core suite's cancel tests), so such a call was cancelled on the sidecar; one the adapter left
 * running stays pending.
 */
export function recordCalls(client) {
  const calls = [];
  const callTool = client.callTool.bind(client);
  client.callTool = (name, ...rest) => {
    const pending = callTool(name, ...rest);
    calls.push({ name, signal: rest[1]?.signal, outcome: pending.then(() => null, (err) => err) });
    return pending;
  };
  return calls;
}

/** The outcome of the recorded call to `name`, which must be its signal's abort (within 10 s). */
export async function assertCancelled(calls, name) {
  const call = calls.find((c) => c.name === name);
  assert.ok(call, `no call to ${name} reached the client`);
  const error = await within(10_000, `the call to ${name} to be cancelled`, call.outcome);
  assert.ok(call.signal?.aborted && error === call.signal.reason, `the call to ${name} ended with ${error?.code ?? error ?? 'success'}`);
}
