// example.test.mjs — the examples run offline to their final answer: agent-loop.mjs (tools) and
// sampling-loop.mjs (a server asking the host's model through a sampling handler), with nothing on
// stderr: the sidecar's own info lines stay out of a new user's terminal.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { FIXTURE_BIN, PACKAGE_ROOT, SIDECAR_BIN, requireBinaries } from '../test-support/env.mjs';

test('the agent loop example calls a tool, recovers from an error and answers', async () => {
  requireBinaries();
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(PACKAGE_ROOT, 'examples', 'agent-loop.mjs')], {
    env: { ...process.env, MCP_SIDECAR_BIN: SIDECAR_BIN, MCP_FIXTURE_BIN: FIXTURE_BIN },
    timeout: 20_000,
  });
  assert.match(stdout, /tool: error INVALID_ARGUMENTS/);
  assert.match(stdout, /assistant: The echo tool says: hello from the agent loop\n$/);
  assert.equal(stderr, '');
});

test('the sampling example answers a server’s sampling request with the stand-in model', async () => {
  requireBinaries();
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(PACKAGE_ROOT, 'examples', 'sampling-loop.mjs')], {
    env: { ...process.env, MCP_SIDECAR_BIN: SIDECAR_BIN, MCP_FIXTURE_BIN: FIXTURE_BIN },
    timeout: 20_000,
  });
  assert.equal(stdout, [
    'server fx: ready',
    'host calls mcp__fx__ask -> sampling/createMessage',
    'server fx asks the model (maxTokens 20): What is 6 times 7?',
    'model answers: 42',
    'server got back: 42 (model stand-in, endTurn)',
    '',
  ].join('\n'));
  assert.equal(stderr, '');
});
