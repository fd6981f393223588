// platform-packages.test.mjs — the binary packages: one per platform with its os/cpu/libc fields,
// the glibc or musl one chosen at run time, the error naming the package expected when none is
// installed, scripts/pack-packages.mjs (the tarballs npm publishes, the main one listing every
// platform package at exactly this version), and the `mcp-sidecar` command (bin/mcp-sidecar.js).

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { PLATFORM_PACKAGES, detectLibc, findBinary, platformKey } from '../src/binary.js';
import { VERSION } from '../src/version.js';
import { PACKAGE_ROOT, tempDir } from '../test-support/env.mjs';

const tmp = tempDir();
after(tmp.cleanup);

function script(path, body) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function installPackage(project, key) {
  const dir = join(project, 'node_modules', `mcp-sidecar-${key}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `mcp-sidecar-${key}`, version: VERSION }));
  return script(join(dir, 'bin', 'mcp-sidecar'), 'exit 0');
}

const npmDirs = readdirSync(join(PACKAGE_ROOT, 'npm')).filter((d) => existsSync(join(PACKAGE_ROOT, 'npm', d, 'package.json')));

test('one package per platform: name, version, os, cpu and libc agree with its key', () => {
  assert.deepEqual(npmDirs.sort(), Object.keys(PLATFORM_PACKAGES).sort());
  for (const key of npmDirs) {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'npm', key, 'package.json'), 'utf8'));
    const [os, cpu, variant] = key.split('-');
    assert.equal(manifest.name, PLATFORM_PACKAGES[key]);
    assert.equal(manifest.version, VERSION, key);
    assert.deepEqual(manifest.os, [os], key);
    assert.deepEqual(manifest.cpu, [cpu], key);
    assert.deepEqual(manifest.libc, os === 'linux' ? [variant === 'musl' ? 'musl' : 'glibc'] : undefined, key);
    assert.deepEqual(manifest.files, [os === 'win32' ? 'bin/mcp-sidecar.exe' : 'bin/mcp-sidecar'], key);
  }
});

test('the package key: glibc or musl on Linux, none elsewhere', () => {
  assert.equal(platformKey('linux', 'x64', 'glibc'), 'linux-x64');
  assert.equal(platformKey('linux', 'arm64', 'musl'), 'linux-arm64-musl');
  assert.equal(platformKey('darwin', 'arm64', 'musl'), 'darwin-arm64');
  assert.equal(platformKey('win32', 'x64'), 'win32-x64');
  // This machine's C library, told as esbuild and biome tell it.
  assert.equal(detectLibc(), process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl');
});

test('the musl package is found on musl, the glibc one on glibc', () => {
  const project = join(tmp.dir, 'both');
  const glibc = installPackage(project, 'linux-x64');
  const musl = installPackage(project, 'linux-x64-musl');
  const where = (libc) => ({ platform: 'linux', arch: 'x64', libc, env: {}, resolveFrom: join(project, 'x.js'), packageRoot: tmp.dir });
  assert.deepEqual(findBinary(where('glibc')), { path: glibc, source: 'package' });
  assert.deepEqual(findBinary(where('musl')), { path: musl, source: 'package' });
});

test('no platform package installed: the error names the package expected and how to install it', () => {
  const empty = join(tmp.dir, 'empty');
  mkdirSync(empty, { recursive: true });
  for (const [libc, expected] of [['glibc', 'mcp-sidecar-linux-x64'], ['musl', 'mcp-sidecar-linux-x64-musl']]) {
    assert.throws(() => findBinary({ platform: 'linux', arch: 'x64', libc, env: {}, resolveFrom: join(empty, 'x.js'), packageRoot: empty }), (err) => {
      assert.equal(err.code, 'BINARY_NOT_FOUND');
      assert.equal(err.data.expectedPackage, expected);
      assert.ok(err.message.includes(`package ${expected}: not installed`), err.message);
      assert.ok(err.message.includes(`npm install ${expected}@${VERSION}`), err.message);
      return true;
    });
  }
  assert.throws(() => findBinary({ platform: 'freebsd', arch: 'x64', env: {}, resolveFrom: join(empty, 'x.js') }), (err) => {
    assert.equal(err.data.expectedPackage, null);
    assert.match(err.message, /No mcp-sidecar package is built for freebsd-x64: build the binary from source/);
    return true;
  });
});

test("PATH never yields the package's own mcp-sidecar command (npm links it into node_modules/.bin)", () => {
  const bin = join(tmp.dir, 'dotbin');
  mkdirSync(bin, { recursive: true });
  // The command of the package under test (the installed one when the suite runs against it).
  const launcher = fileURLToPath(new URL('../bin/mcp-sidecar.js', import.meta.resolve('../src/binary.js')));
  symlinkSync(launcher, join(bin, 'mcp-sidecar'));
  const empty = join(tmp.dir, 'empty-for-path');
  mkdirSync(empty, { recursive: true });
  const where = { platform: 'linux', arch: 'x64', libc: 'glibc', resolveFrom: join(empty, 'x.js'), packageRoot: empty };
  assert.throws(() => findBinary({ ...where, env: { PATH: bin } }), /no executable named mcp-sidecar/);
  const real = script(join(tmp.dir, 'realbin', 'mcp-sidecar'), 'exit 0');
  assert.deepEqual(findBinary({ ...where, env: { PATH: `${bin}:${join(tmp.dir, 'realbin')}` } }), { path: real, source: 'path' });
});

test('pack-packages.mjs packs each platform package with its binary and the main one listing them all', () => {
  const out = join(tmp.dir, 'packed');
  const fake = script(join(tmp.dir, 'built', 'mcp-sidecar'), 'echo fake');
  const packer = join(PACKAGE_ROOT, 'scripts', 'pack-packages.mjs');
  const run = (...args) => spawnSync(process.execPath, [packer, '--out', out, ...args], { encoding: 'utf8' });

  const partial = run('--binary', `linux-x64=${fake}`);
  assert.equal(partial.status, 1);
  assert.match(partial.stderr, /no binary given for darwin-arm64, .*win32-x64 \(pass --allow-missing/);
  assert.match(run('--binary', `plan9-mips=${fake}`, '--allow-missing').stderr, /no platform package npm\/plan9-mips/);

  const packed = run('--binary', `linux-x64-musl=${fake}`, '--allow-missing');
  assert.equal(packed.status, 0, packed.stderr);
  const tarballs = packed.stdout.trim().split('\n');
  assert.deepEqual(tarballs, [join(out, `mcp-sidecar-linux-x64-musl-${VERSION}.tgz`), join(out, `mcp-sidecar-${VERSION}.tgz`)]);

  const list = (tgz) => execFileSync('tar', ['-tvzf', tgz], { encoding: 'utf8' }).trim().split('\n');
  const platformFiles = list(tarballs[0]);
  assert.equal(platformFiles.length, 2, platformFiles.join('\n'));
  assert.match(platformFiles.find((l) => l.endsWith('package/bin/mcp-sidecar')), /^-rwxr-xr-x/);
  const platformManifest = JSON.parse(execFileSync('tar', ['-xzOf', tarballs[0], 'package/package.json'], { encoding: 'utf8' }));
  assert.deepEqual([platformManifest.name, platformManifest.libc], ['mcp-sidecar-linux-x64-musl', ['musl']]);

  const main = JSON.parse(execFileSync('tar', ['-xzOf', tarballs[1], 'package/package.json'], { encoding: 'utf8' }));
  // Exact versions: a range would let npm take another version of a package of that name.
  assert.deepEqual(main.optionalDependencies, Object.fromEntries(Object.values(PLATFORM_PACKAGES).sort().map((name) => [name, VERSION])));
  assert.deepEqual(main.bin, { 'mcp-sidecar': 'bin/mcp-sidecar.js' });
  assert.ok(list(tarballs[1]).some((l) => l.endsWith('package/bin/mcp-sidecar.js')));
  // The checkout's manifest stays without them (`npm ci` of a checkout could not resolve them).
  assert.equal(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).optionalDependencies, undefined);
});

test('the mcp-sidecar command runs the binary with its arguments and ends as it ends', () => {
  const launcher = join(PACKAGE_ROOT, 'bin', 'mcp-sidecar.js');
  const fake = script(join(tmp.dir, 'cmd', 'mcp-sidecar'), 'echo "args:$*"; [ "$1" = term ] && kill -TERM $$; exit 3');
  const env = { ...process.env, MCP_SIDECAR_BIN: fake };
  const ran = spawnSync(process.execPath, [launcher, 'doctor', '--json'], { env, encoding: 'utf8' });
  assert.equal(ran.stdout, 'args:doctor --json\n');
  assert.equal(ran.status, 3);
  const killed = spawnSync(process.execPath, [launcher, 'term'], { env, encoding: 'utf8' });
  assert.equal(killed.signal, 'SIGTERM');

  const empty = join(tmp.dir, 'cmd-empty');
  mkdirSync(empty, { recursive: true });
  const missing = spawnSync(process.execPath, [launcher, '--version'], {
    env: { PATH: empty, MCP_SIDECAR_BIN: '' }, encoding: 'utf8',
  });
  assert.equal(missing.status, 1);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /^mcp-sidecar: mcp-sidecar binary not found/);
});
