#!/usr/bin/env node
// pack-packages.mjs — owns packing what npm publishes: one tarball per platform package
// (npm/<key>/package.json with the binary given for it in bin/) and the mcp-sidecar tarball, whose
// manifest lists every platform package as an optional dependency at exactly this version (the
// way esbuild and biome ship). The repository's package.json carries no optionalDependencies:
// `npm ci` of a checkout would need every one of them resolvable from the registry before it is
// published. Offline: it copies files and runs `npm pack` and `tar`.
//
//   node scripts/pack-packages.mjs --out DIR [--binary KEY=PATH]... [--allow-missing]
//       KEY a directory of npm/ (linux-x64, linux-x64-musl, win32-x64, …); without
//       --allow-missing every platform package needs its binary (a release publishes them all)

import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM_DIR = join(PACKAGE_ROOT, 'npm');

const die = (message) => {
  process.stderr.write(`pack-packages: ${message}\n`);
  process.exit(1);
};
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    binary: { type: 'string', multiple: true, default: [] },
    'allow-missing': { type: 'boolean', default: false },
  },
  strict: true,
});
if (values.out === undefined) die('--out DIR is required');
const out = resolve(values.out);
mkdirSync(out, { recursive: true });

const main = readJson(join(PACKAGE_ROOT, 'package.json'));
const platforms = new Map();
for (const key of readdirSync(NPM_DIR).sort()) {
  const path = join(NPM_DIR, key, 'package.json');
  if (!existsSync(path)) continue;
  const manifest = readJson(path);
  if (manifest.version !== main.version) die(`${path} has version ${manifest.version}, mcp-sidecar is ${main.version}`);
  platforms.set(key, manifest);
}

const binaries = new Map();
for (const pair of values.binary) {
  const at = pair.indexOf('=');
  const [key, path] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
  if (!platforms.has(key)) die(`--binary ${pair}: no platform package npm/${key} (known: ${[...platforms.keys()].join(', ')})`);
  if (path === '' || !existsSync(path) || !statSync(path).isFile()) die(`--binary ${pair}: no such file`);
  binaries.set(key, resolve(path));
}
const missing = [...platforms.keys()].filter((key) => !binaries.has(key));
if (missing.length > 0 && !values['allow-missing']) die(`no binary given for ${missing.join(', ')} (pass --allow-missing for a partial set)`);

const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
/** `npm pack` of DIR into `out`; returns the tarball's path. */
const pack = (dir) => {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--offline', '--pack-destination', out], { cwd: dir, encoding: 'utf8', env: npmEnv }));
  return join(out, packed.filename);
};

const work = mkdtempSync(join(tmpdir(), 'mcp-sidecar-pack-'));
try {
  for (const [key, path] of binaries) {
    const manifest = platforms.get(key);
    const dir = join(work, key);
    mkdirSync(join(dir, 'bin'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const exe = join(dir, manifest.files[0]);
    copyFileSync(path, exe);
    chmodSync(exe, 0o755);
    process.stdout.write(`${pack(dir)}\n`);
  }

  // The main package: packed as the repository has it, then its manifest given the platform
  // packages and packed again, so `files` decides its content in one place.
  const first = join(work, 'first');
  mkdirSync(first);
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--offline', '--pack-destination', first], { cwd: PACKAGE_ROOT, encoding: 'utf8', env: npmEnv }));
  execFileSync('tar', ['-xzf', join(first, packed.filename), '-C', work]);
  const staged = join(work, 'package');
  const manifest = readJson(join(staged, 'package.json'));
  manifest.optionalDependencies = Object.fromEntries([...platforms.values()].map((p) => [p.name, p.version]));
  writeFileSync(join(staged, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`${pack(staged)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
