// types.test.mjs — type-checks test-support/types/usage.ts against index.d.ts with the TypeScript
// compiler from devDependencies (no network). Skipped, saying why, when devDependencies are
// not installed.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../test-support/env.mjs';

const tsc = join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

test('index.d.ts type-checks a typical use', { skip: existsSync(tsc) ? false : 'typescript not installed (run npm ci)', timeout: 60_000 }, () => {
  // usage.ts imports 'mcp-sidecar' by name, as a user would (a package may import itself
  // through its "exports").
  try {
    execFileSync(process.execPath, [tsc, '-p', join(PACKAGE_ROOT, 'test-support', 'types', 'tsconfig.json')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (err) {
    assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
  }
});
