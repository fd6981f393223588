// example.test.mjs — examples/agent-loop.mjs runs offline to its final answer.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { FIXTURE_BIN, PACKAGE_ROOT, SIDECAR_BIN, requireBinaries } from '../test-support/env.mjs';

test('the agent loop example calls a tool, recovers from an error and answers', async () => {
  requireBinaries();
  const { stdout } = await promisify(execFile)(process.execPath, [join(PACKAGE_ROOT, 'examples', 'agent-loop.mjs')], {
    env: { ...process.env, MCP_SIDECAR_BIN: SIDECAR_BIN, MCP_FIXTURE_BIN: FIXTURE_BIN },
    timeout: 20_000,
  });
  assert.match(stdout, /tool: error INVALID_ARGUMENTS/);
  assert.match(stdout, /assistant: The echo tool says: hello from the agent loop\n$/);
});
