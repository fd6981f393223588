// types.test.mjs — type-checks test-support/types/adapters-usage.ts against the adapters'
// definitions (src/adapters/*.d.ts) and the frameworks' own types, with the TypeScript compiler
// from devDependencies (no network).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { PACKAGE_ROOT } from '../test-support/env.mjs';

test('the adapters’ definitions type-check a typical use with the frameworks’ types', { timeout: 300_000 }, () => {
  const tsc = join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(PACKAGE_ROOT, 'test-support', 'types', 'tsconfig.adapters.json')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (err) {
    assert.fail(`tsc reported errors:\n${err.stdout}${err.stderr}`);
  }
});
