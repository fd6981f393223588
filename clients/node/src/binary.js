// binary.js — owns finding the mcp-sidecar executable. Order: the explicit `binaryPath`
// option, then env MCP_SIDECAR_BIN, then the binary shipped with the package (the per-platform
// optional dependency `mcp-sidecar-<platform>-<arch>[-musl]`, the C library told at run time as
// esbuild and biome do, else a copy staged in this package's own npm/<key>/bin/), then PATH
// (never this package's own `mcp-sidecar` launcher found there). When nothing is found, one
// SidecarError (code BINARY_NOT_FOUND) lists every place looked at and names the platform package
// that was expected.

import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SidecarError } from './errors.js';
import { VERSION } from './version.js';

/** Platforms for which a binary package exists (`npm/<key>/package.json`). */
export const PLATFORM_PACKAGES = Object.freeze({
  'linux-x64': 'mcp-sidecar-linux-x64',
  'linux-arm64': 'mcp-sidecar-linux-arm64',
  'linux-x64-musl': 'mcp-sidecar-linux-x64-musl',
  'linux-arm64-musl': 'mcp-sidecar-linux-arm64-musl',
  'darwin-x64': 'mcp-sidecar-darwin-x64',
  'darwin-arm64': 'mcp-sidecar-darwin-arm64',
  'win32-x64': 'mcp-sidecar-win32-x64',
});

export const ENV_VAR = 'MCP_SIDECAR_BIN';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
// The package's `mcp-sidecar` command (bin/mcp-sidecar.js): npm links it into node_modules/.bin,
// which npm scripts and npx put on PATH. It is not the sidecar, and running it as one would loop.
const LAUNCHER = join(PACKAGE_ROOT, 'bin', 'mcp-sidecar.js');

let hostLibc;
/**
 * The C library of this Linux process: 'glibc' when Node's report names a glibc runtime, else
 * 'musl' (Alpine and other musl distributions). Read once: the report takes a few milliseconds.
 */
export function detectLibc() {
  if (hostLibc === undefined) {
    const header = process.report?.getReport?.().header;
    hostLibc = header?.glibcVersionRuntime ? 'glibc' : 'musl';
  }
  return hostLibc;
}

/**
 * The key of the platform package for a platform, CPU and (on Linux) C library:
 * `linux-x64`, `linux-x64-musl`, `darwin-arm64`, `win32-x64`…
 */
export function platformKey(platform = process.platform, arch = process.arch, libc = undefined) {
  const key = `${platform}-${arch}`;
  if (platform !== 'linux') return key;
  return (libc ?? (platform === process.platform ? detectLibc() : 'glibc')) === 'musl' ? `${key}-musl` : key;
}

function isLauncher(path) {
  try {
    return realpathSync(path) === realpathSync(LAUNCHER);
  } catch {
    return false;
  }
}

/** File name of the executable on a platform. */
export function executableName(platform = process.platform) {
  return platform === 'win32' ? 'mcp-sidecar.exe' : 'mcp-sidecar';
}

function check(path) {
  try {
    if (!statSync(path).isFile()) return 'not a regular file';
    accessSync(path, constants.X_OK);
    return null;
  } catch (err) {
    return err.code === 'ENOENT' ? 'not found' : err.code === 'EACCES' ? 'not executable' : err.message;
  }
}

/**
 * Finds the sidecar binary.
 * @param {object} [options]
 * @param {string} [options.binaryPath] explicit path; used (or reported missing) before anything else
 * @param {Record<string, string|undefined>} [options.env] environment to read (default process.env)
 * @param {string} [options.platform] default process.platform
 * @param {string} [options.arch] default process.arch
 * @param {'glibc'|'musl'} [options.libc] Linux only; default: told from this process
 * @param {string} [options.resolveFrom] file or URL that `require.resolve` starts from (default: this module)
 * @param {string} [options.packageRoot] directory holding the staged `npm/<platform>-<arch>/` packages
 * @returns {{path: string, source: 'option'|'env'|'package'|'staged'|'path'}}
 */
export function findBinary(options = {}) {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const exe = executableName(platform);
  const searched = [];
  const key = platformKey(platform, arch, options.libc);
  const pkg = PLATFORM_PACKAGES[key];
  const fail = (hint) => {
    const lines = searched.map((s, i) => `  ${i + 1}. ${s.place}: ${s.reason}`);
    throw new SidecarError(
      'BINARY_NOT_FOUND',
      `mcp-sidecar binary not found. Looked at, in order:\n${lines.join('\n')}\n${hint}`,
      { data: { searched, expectedPackage: pkg ?? null } },
    );
  };

  // 1 and 2: explicit choices. When given, they are used or the search stops with an error:
  // silently falling through to another binary would hide a misconfiguration.
  const explicit = [
    ['option', 'option binaryPath', options.binaryPath],
    ['env', `env ${ENV_VAR}`, env[ENV_VAR]],
  ];
  for (const [source, place, value] of explicit) {
    if (value === undefined || value === null || value === '') {
      searched.push({ source, place, path: null, reason: source === 'env' ? 'not set' : 'not given' });
      continue;
    }
    const path = String(value);
    const problem = check(path);
    if (problem === null) return { path, source };
    searched.push({ source, place: `${place} = ${path}`, path, reason: problem });
    fail(`Fix ${place} (it was given explicitly, so no other place was tried).`);
  }

  // 3: the binary shipped with the package.
  if (pkg === undefined) {
    searched.push({ source: 'package', place: 'shipped binary package', path: null, reason: `no package for platform ${key}` });
  } else {
    let manifest = null;
    try {
      manifest = createRequire(options.resolveFrom ?? import.meta.url).resolve(`${pkg}/package.json`);
    } catch {
      searched.push({ source: 'package', place: `package ${pkg}`, path: null, reason: 'not installed (optional dependency)' });
    }
    if (manifest !== null) {
      const path = join(dirname(manifest), 'bin', exe);
      const problem = check(path);
      if (problem === null) return { path, source: 'package' };
      searched.push({ source: 'package', place: `package ${pkg} (${path})`, path, reason: problem });
    }
    const staged = join(options.packageRoot ?? PACKAGE_ROOT, 'npm', key, 'bin', exe);
    const problem = check(staged);
    if (problem === null) return { path: staged, source: 'staged' };
    searched.push({ source: 'staged', place: `staged copy ${staged}`, path: staged, reason: problem });
  }

  // 4: PATH.
  const dirs = (env.PATH ?? env.Path ?? '').split(delimiter).filter((d) => d !== '');
  for (const dir of dirs) {
    const path = join(dir, exe);
    if (check(path) === null && !isLauncher(path)) return { path, source: 'path' };
  }
  searched.push({
    source: 'path',
    place: `PATH (${dirs.length === 0 ? 'empty' : dirs.join(delimiter)})`,
    path: null,
    reason: `no executable named ${exe}`,
  });
  const installedPackage = searched.some((s) => s.source === 'package' && s.path !== null);
  const fix = pkg === undefined
    ? `No mcp-sidecar package is built for ${key}: build the binary from source (cargo build --release) and set ${ENV_VAR} or pass binaryPath.`
    : installedPackage
    ? `The optional dependency ${pkg} is installed without a usable binary: reinstall it (npm install ${pkg}@${VERSION}), ` +
      `or set ${ENV_VAR} / pass binaryPath to a binary you have.`
    : `The binary for this platform comes in the optional dependency ${pkg}@${VERSION}, which is not installed ` +
      `(installs with --omit=optional or --no-optional, or a lockfile made on another platform, leave it out). ` +
      `Fix: npm install ${pkg}@${VERSION} (or reinstall mcp-sidecar with optional dependencies); ` +
      `or set ${ENV_VAR} / pass binaryPath to a binary you have.`;
  return fail(fix);
}
