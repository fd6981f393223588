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
  assert.deepEqual(manifest.bin, { 'mcp-sidecar': 'bin/mcp-sidecar.js' });
  assert.equal(manifest.scripts.test, 'node --test test/');
  assert.equal(api.VERSION, manifest.version);
  for (const name of ['SidecarClient', 'start', 'SidecarError', 'findBinary', 'RPC_CODES', 'CLIENT_CODES']) {
    assert.ok(name in api, `missing export ${name}`);
  }
});

/** Every file under src/ (the framework adapters are in src/adapters/), as `src/...` paths. */
const sources = readdirSync(join(PACKAGE_ROOT, 'src'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(PACKAGE_ROOT.length).replace(/^\//, ''));

test('every source file starts with a header comment saying what it owns', () => {
  assert.ok(sources.includes('src/adapters/ai-sdk.js'), sources.join(', '));
  for (const path of sources) {
    const file = path.split('/').pop();
    const text = readFileSync(join(PACKAGE_ROOT, path), 'utf8');
    assert.match(text, new RegExp(`^// ${file.replaceAll('.', '\\.')} — `), path);
  }
});

test('the core entry point imports no framework adapter (they are subpath exports)', () => {
  for (const path of sources.filter((p) => !p.startsWith('src/adapters/'))) {
    const text = readFileSync(join(PACKAGE_ROOT, path), 'utf8');
    assert.doesNotMatch(text, /from '\.\/adapters\/|from '(ai|@openai\/agents|@langchain\/core)[/']/, path);
  }
  for (const [subpath, file] of [['./ai-sdk', 'ai-sdk'], ['./openai-agents', 'openai-agents'], ['./langchain', 'langchain']]) {
    assert.deepEqual(manifest.exports[subpath], { types: `./src/adapters/${file}.d.ts`, default: `./src/adapters/${file}.js` });
  }
  for (const peer of Object.keys(manifest.peerDependencies)) {
    assert.equal(manifest.peerDependenciesMeta[peer]?.optional, true, `${peer} must be an optional peer`);
  }
});

test('npm pack ships src/, the mcp-sidecar command, index.d.ts, the generated protocol files, README.md and package.json only (offline)', () => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline'], {
    cwd: PACKAGE_ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
  }));
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(files, ['README.md', 'bin/mcp-sidecar.js', 'generated.d.ts', 'generated.js', 'index.d.ts', 'package.json', ...sources].sort());
});
