// binary.test.mjs — binary discovery: the order (option, env, shipped package, staged copy,
// PATH), the BINARY_NOT_FOUND error listing every place, staging a fake binary with
// scripts/stage-binary.mjs, resolving it as an installed platform package, and `npm pack`.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { SidecarClient, SidecarError, findBinary } from '../src/index.js';
import { PACKAGE_ROOT, SIDECAR_BIN, requireBinaries, tempDir, within } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

function fakeExe(path, executable = true) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, executable ? 0o755 : 0o644);
  return path;
}

function platformPackage(root, key, withBinary = true) {
  const dir = join(root, 'node_modules', `mcp-sidecar-${key}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `mcp-sidecar-${key}`, version: '0.1.0' }));
  if (withBinary) fakeExe(join(dir, 'bin', 'mcp-sidecar'));
  return dir;
}

// One layout with a candidate at every place; each case removes what it should not see.
const base = join(tmp.dir, 'order');
const option = fakeExe(join(base, 'option', 'mcp-sidecar'));
const fromEnv = fakeExe(join(base, 'env', 'mcp-sidecar'));
const project = join(base, 'project');
const installed = platformPackage(project, 'linux-x64');
const stagedRoot = join(base, 'staged');
const staged = fakeExe(join(stagedRoot, 'npm', 'linux-x64', 'bin', 'mcp-sidecar'));
const pathDir = join(base, 'pathdir');
const onPath = fakeExe(join(pathDir, 'mcp-sidecar'));
const emptyProject = join(base, 'empty-project');
mkdirSync(emptyProject, { recursive: true });

const where = (overrides) => ({
  platform: 'linux',
  arch: 'x64',
  env: { MCP_SIDECAR_BIN: fromEnv, PATH: pathDir },
  binaryPath: option,
  resolveFrom: join(project, 'index.js'),
  packageRoot: stagedRoot,
  ...overrides,
});

test('discovery order: option, env, package, staged copy, PATH', () => {
  assert.deepEqual(findBinary(where({})), { path: option, source: 'option' });
  assert.deepEqual(findBinary(where({ binaryPath: undefined })), { path: fromEnv, source: 'env' });
  const noEnv = { PATH: pathDir };
  assert.deepEqual(findBinary(where({ binaryPath: undefined, env: noEnv })), {
    path: join(installed, 'bin', 'mcp-sidecar'),
    source: 'package',
  });
  assert.deepEqual(
    findBinary(where({ binaryPath: undefined, env: noEnv, resolveFrom: join(emptyProject, 'x.js') })),
    { path: staged, source: 'staged' },
  );
  assert.deepEqual(
    findBinary(where({ binaryPath: undefined, env: noEnv, resolveFrom: join(emptyProject, 'x.js'), packageRoot: emptyProject })),
    { path: onPath, source: 'path' },
  );
  // An empty MCP_SIDECAR_BIN counts as unset.
  assert.equal(findBinary(where({ binaryPath: undefined, env: { MCP_SIDECAR_BIN: '', PATH: pathDir } })).source, 'package');
});

test('nothing found: one SidecarError listing every place looked at, in order', () => {
  const nonExecutableDir = join(base, 'noexec');
  fakeExe(join(nonExecutableDir, 'mcp-sidecar'), false);
  let error;
  try {
    findBinary(where({
      binaryPath: undefined,
      env: { PATH: `${nonExecutableDir}:${join(base, 'missing')}` },
      resolveFrom: join(emptyProject, 'x.js'),
      packageRoot: emptyProject,
    }));
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof SidecarError);
  assert.equal(error.code, 'BINARY_NOT_FOUND');
  assert.equal(error.rpcCode, undefined);
  assert.deepEqual(error.data.searched.map((s) => s.source), ['option', 'env', 'package', 'staged', 'path']);
  for (const needle of [
    'option binaryPath: not given',
    'env MCP_SIDECAR_BIN: not set',
    'package mcp-sidecar-linux-x64: not installed',
    `staged copy ${join(emptyProject, 'npm', 'linux-x64', 'bin', 'mcp-sidecar')}: not found`,
    `PATH (${nonExecutableDir}:${join(base, 'missing')}): no executable named mcp-sidecar`,
  ]) {
    assert.ok(error.message.includes(needle), `message lacks ${JSON.stringify(needle)}:\n${error.message}`);
  }
});

test('an explicit path that does not exist is an error, not a fall-through', () => {
  const missing = join(base, 'nope', 'mcp-sidecar');
  assert.throws(() => findBinary(where({ binaryPath: missing })), (err) => {
    assert.equal(err.code, 'BINARY_NOT_FOUND');
    assert.match(err.message, /option binaryPath = .*nope\/mcp-sidecar: not found/);
    assert.equal(err.data.searched.length, 1);
    return true;
  });
  assert.throws(() => findBinary(where({ binaryPath: undefined, env: { MCP_SIDECAR_BIN: missing, PATH: pathDir } })), (err) => {
    assert.match(err.message, /env MCP_SIDECAR_BIN = .*: not found/);
    assert.deepEqual(err.data.searched.map((s) => s.source), ['option', 'env']);
    return true;
  });
});

test('installed platform package without its binary, and unknown platforms, are reported', () => {
  const broken = join(base, 'broken');
  platformPackage(broken, 'linux-x64', false);
  assert.throws(
    () => findBinary(where({ binaryPath: undefined, env: {}, resolveFrom: join(broken, 'x.js'), packageRoot: emptyProject })),
    /package mcp-sidecar-linux-x64 \(.*bin\/mcp-sidecar\): not found/,
  );
  assert.throws(
    () => findBinary(where({ binaryPath: undefined, env: {}, platform: 'aix', arch: 'ppc64' })),
    /shipped binary package: no package for platform aix-ppc64/,
  );
  // Windows looks for mcp-sidecar.exe.
  assert.throws(
    () => findBinary(where({ binaryPath: undefined, env: {}, platform: 'win32', resolveFrom: join(emptyProject, 'x.js') })),
    /package mcp-sidecar-win32-x64: not installed[^]*no executable named mcp-sidecar\.exe/,
  );
});

test('stage-binary.mjs stages a fake binary that resolves as an installed package and packs offline', () => {
  const npmDir = join(tmp.dir, 'npm');
  cpSync(join(PACKAGE_ROOT, 'npm'), npmDir, { recursive: true, filter: (src) => !src.includes(`${join('npm', 'linux-x64', 'bin')}`) });
  const fake = fakeExe(join(tmp.dir, 'built', 'mcp-sidecar'));
  const out = execFileSync(process.execPath, [
    join(PACKAGE_ROOT, 'scripts', 'stage-binary.mjs'), '--binary', fake, '--platform', 'linux-x64', '--npm-dir', npmDir,
  ], { encoding: 'utf8' });
  assert.match(out, /staged .* -> .*linux-x64\/bin\/mcp-sidecar/);
  const stagedBinary = join(npmDir, 'linux-x64', 'bin', 'mcp-sidecar');
  assert.equal(statSync(stagedBinary).mode & 0o777, 0o755);
  assert.equal(readFileSync(stagedBinary, 'utf8'), readFileSync(fake, 'utf8'));

  // `npm pack` of the platform package works offline and ships exactly the binary.
  const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--offline'], {
    cwd: join(npmDir, 'linux-x64'), encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
  }));
  assert.equal(packed[0].name, 'mcp-sidecar-linux-x64');
  assert.deepEqual(packed[0].files.map((f) => f.path).sort(), ['bin/mcp-sidecar', 'package.json']);

  // Installed where npm would put it, it is found by require.resolve.
  const app = join(tmp.dir, 'app');
  cpSync(join(npmDir, 'linux-x64'), join(app, 'node_modules', 'mcp-sidecar-linux-x64'), { recursive: true });
  const found = findBinary({ platform: 'linux', arch: 'x64', env: {}, resolveFrom: join(app, 'main.js'), packageRoot: emptyProject });
  assert.equal(found.source, 'package');
  assert.equal(found.path, join(app, 'node_modules', 'mcp-sidecar-linux-x64', 'bin', 'mcp-sidecar'));

  // A staged (not installed) copy is found as 'staged'.
  assert.equal(findBinary({ platform: 'linux', arch: 'x64', env: {}, resolveFrom: join(emptyProject, 'x.js'), packageRoot: tmp.dir }).source, 'staged');

  // Unknown platform: a clear failure.
  assert.throws(() => execFileSync(process.execPath, [
    join(PACKAGE_ROOT, 'scripts', 'stage-binary.mjs'), '--binary', fake, '--platform', 'plan9-mips', '--npm-dir', npmDir,
  ], { stdio: 'pipe' }), /no platform package/);
});

test('stage-binary.mjs --write-optional-deps lists every platform package at the package version', () => {
  const manifest = join(tmp.dir, 'package.json');
  writeFileSync(manifest, JSON.stringify({ name: 'mcp-sidecar', version: '0.1.0' }));
  execFileSync(process.execPath, [
    join(PACKAGE_ROOT, 'scripts', 'stage-binary.mjs'), '--write-optional-deps', '--package-json', manifest,
  ]);
  assert.deepEqual(JSON.parse(readFileSync(manifest, 'utf8')).optionalDependencies, {
    'mcp-sidecar-darwin-arm64': '0.1.0',
    'mcp-sidecar-darwin-x64': '0.1.0',
    'mcp-sidecar-linux-arm64': '0.1.0',
    'mcp-sidecar-linux-arm64-musl': '0.1.0',
    'mcp-sidecar-linux-x64': '0.1.0',
    'mcp-sidecar-linux-x64-musl': '0.1.0',
    'mcp-sidecar-win32-x64': '0.1.0',
  });
});

test('start() uses MCP_SIDECAR_BIN and reports a missing binary and a failed spawn', async () => {
  requireBinaries();
  const saved = process.env.MCP_SIDECAR_BIN;
  try {
    process.env.MCP_SIDECAR_BIN = SIDECAR_BIN;
    const client = await within(10_000, 'start', SidecarClient.start({ stderr: 'ignore' }));
    assert.equal(client.binarySource, 'env');
    assert.equal(client.binaryPath, SIDECAR_BIN);
    assert.deepEqual(await client.close(), { code: 0, signal: null });

    process.env.MCP_SIDECAR_BIN = join(tmp.dir, 'does-not-exist');
    await assert.rejects(SidecarClient.start(), { name: 'SidecarError', code: 'BINARY_NOT_FOUND' });
  } finally {
    if (saved === undefined) delete process.env.MCP_SIDECAR_BIN;
    else process.env.MCP_SIDECAR_BIN = saved;
  }
  // Executable, but its interpreter does not exist: the OS refuses to start it.
  const badInterpreter = join(tmp.dir, 'bad-interpreter');
  writeFileSync(badInterpreter, '#!/nonexistent/interpreter\n');
  chmodSync(badInterpreter, 0o755);
  await assert.rejects(within(10_000, 'start', SidecarClient.start({ binaryPath: badInterpreter })), (err) => {
    assert.equal(err.code, 'SPAWN_FAILED');
    assert.equal(err.data.path, badInterpreter);
    assert.equal(err.data.errno, 'ENOENT');
    return true;
  });
});
