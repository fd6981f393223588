// package.test.mjs — the package itself: zero runtime dependencies, ESM, Node >= 20, the
// version constant in step with package.json, every source file with its header comment, and
// `npm pack` (offline) shipping exactly the code, types (with the files generated from
// proto/schema) and README.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as api from '../src/index.js';
import { PACKAGE_ROOT } from '../test-support/env.mjs';

const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8'));

test('manifest: ESM, no runtime dependencies, Node >= 20, types, version in step', () => {
  assert.equal(manifest.name, 'mcp-sidecar');
  assert.equal(manifest.type, 'module');
  assert.equal(manifest.dependencies, undefined);
  assert.equal(manifest.engines.node, '>=20');
  assert.equal(manifest.exports['.'].types, './index.d.ts');
  assert.equal(manifest.scripts.test, 'node --test test/');
  assert.equal(api.VERSION, manifest.version);
  for (const name of ['SidecarClient', 'start', 'SidecarError', 'findBinary', 'RPC_CODES', 'CLIENT_CODES']) {
    assert.ok(name in api, `missing export ${name}`);
  }
});

test('every source file starts with a header comment saying what it owns', () => {
  for (const file of readdirSync(join(PACKAGE_ROOT, 'src'))) {
    const text = readFileSync(join(PACKAGE_ROOT, 'src', file), 'utf8');
    assert.match(text, new RegExp(`^// ${file.replace('.', '\\.')} — `), file);
  }
});

test('npm pack ships src/, index.d.ts, the generated protocol files, README.md and package.json only (offline)', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline'], {
    cwd: PACKAGE_ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
  }));
  const files = packed.files.map((f) => f.path).sort();
  const sources = readdirSync(join(PACKAGE_ROOT, 'src')).map((f) => `src/${f}`);
  assert.deepEqual(files, ['README.md', 'generated.d.ts', 'generated.js', 'index.d.ts', 'package.json', ...sources].sort());
});
