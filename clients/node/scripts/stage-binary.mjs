#!/usr/bin/env node
// stage-binary.mjs — owns staging a locally built mcp-sidecar into its per-platform npm package
// (npm/<platform>-<arch>/bin/), and, at publish time only, writing those packages into the main
// package.json as optionalDependencies. Offline: it only copies files.
//
//   node scripts/stage-binary.mjs [--binary PATH] [--platform KEY] [--npm-dir DIR]
//       copy PATH (default: <repo>/target/release/mcp-sidecar) into DIR/KEY/bin/
//       (KEY default: this machine's <platform>-<arch>; DIR default: npm/ beside this script)
//   node scripts/stage-binary.mjs --write-optional-deps [--package-json PATH] [--npm-dir DIR]
//       set "optionalDependencies" of PATH (default: ../package.json) to every platform package
//       at its version; run just before `npm publish`, not in the repository.

import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const PACKAGE_ROOT = join(HERE, '..');
const REPO_ROOT = join(PACKAGE_ROOT, '..', '..');

const die = (message) => {
  process.stderr.write(`stage-binary: ${message}\n`);
  process.exit(1);
};
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

const { values } = parseArgs({
  options: {
    binary: { type: 'string' },
    platform: { type: 'string', default: `${process.platform}-${process.arch}` },
    'npm-dir': { type: 'string', default: join(PACKAGE_ROOT, 'npm') },
    'write-optional-deps': { type: 'boolean', default: false },
    'package-json': { type: 'string', default: join(PACKAGE_ROOT, 'package.json') },
  },
  strict: true,
});
const npmDir = values['npm-dir'];

if (values['write-optional-deps']) {
  const manifestPath = values['package-json'];
  const manifest = readJson(manifestPath);
  const deps = {};
  for (const key of readdirSync(npmDir).sort()) {
    const path = join(npmDir, key, 'package.json');
    if (!existsSync(path)) continue;
    const platformPackage = readJson(path);
    if (platformPackage.version !== manifest.version) {
      die(`${path} has version ${platformPackage.version}, ${manifestPath} has ${manifest.version}`);
    }
    deps[platformPackage.name] = platformPackage.version;
  }
  manifest.optionalDependencies = deps;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write(`wrote optionalDependencies (${Object.keys(deps).length} packages) to ${manifestPath}\n`);
  process.exit(0);
}

const key = values.platform;
const exe = key.startsWith('win32-') ? 'mcp-sidecar.exe' : 'mcp-sidecar';
const packageDir = join(npmDir, key);
const packageJson = join(packageDir, 'package.json');
if (!existsSync(packageJson)) {
  const known = readdirSync(npmDir).filter((d) => existsSync(join(npmDir, d, 'package.json')));
  die(`no platform package ${packageJson} (known: ${known.join(', ')})`);
}
const mainVersion = readJson(join(PACKAGE_ROOT, 'package.json')).version;
const platformVersion = readJson(packageJson).version;
if (platformVersion !== mainVersion) {
  die(`${packageJson} has version ${platformVersion} but mcp-sidecar is ${mainVersion}; keep them equal`);
}
const source = values.binary ?? join(REPO_ROOT, 'target', 'release', exe);
if (!existsSync(source) || !statSync(source).isFile()) {
  die(`binary ${source} not found (build it with \`cargo build --release\` in ${REPO_ROOT}, or pass --binary)`);
}
const target = join(packageDir, 'bin', exe);
mkdirSync(dirname(target), { recursive: true });
copyFileSync(source, target);
chmodSync(target, 0o755);
process.stdout.write(`staged ${source} -> ${target} (${statSync(target).size} bytes)\n`);
