// env.mjs — owns the test environment: where the repository, the sidecar and the fixture
// binaries are (env MCP_SIDECAR_BIN / MCP_FIXTURE_BIN, default target/debug/ under the repo
// root; when the suite runs against an installed package (installed-package.mjs), the sidecar
// its platform package installed), plus small bounded-wait helpers shared by the test files. Lives outside test/ so that
// `node --test test/` does not run it as a test file.

import { existsSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const SCENARIOS_PATH = join(REPO_ROOT, 'proto', 'scenarios', 'scenarios.json');

const exe = process.platform === 'win32' ? '.exe' : '';
/** The binary the installed package finds by itself (no option, no env, no PATH), else null. */
async function installedSidecar() {
  if (!process.env.MCP_SIDECAR_TEST_INSTALLED) return null;
  const found = (await import('../src/binary.js')).findBinary({ env: {} });
  if (found.source !== 'package') throw new Error(`the installed package found ${found.path} (${found.source}), not its platform package's binary`);
  return found.path;
}
export const SIDECAR_BIN = process.env.MCP_SIDECAR_BIN || (await installedSidecar()) || join(REPO_ROOT, 'target', 'debug', `mcp-sidecar${exe}`);
export const FIXTURE_BIN = process.env.MCP_FIXTURE_BIN || join(REPO_ROOT, 'target', 'debug', `mcp-fixture${exe}`);

/** Throws a clear message when the Rust binaries have not been built. */
export function requireBinaries() {
  for (const [name, path] of [['MCP_SIDECAR_BIN', SIDECAR_BIN], ['MCP_FIXTURE_BIN', FIXTURE_BIN]]) {
    if (!existsSync(path)) {
      throw new Error(`${path} does not exist: run \`cargo build --workspace\` in ${REPO_ROOT} or set ${name}`);
    }
  }
}

/** Rejects with `what` in the message if `promise` does not settle within `ms`. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Polls `check` (sync or async) until it returns a truthy value, at most `ms`. Only for states
 * that announce themselves with no event (a pid disappearing, a server's stderr tail).
 */
export async function pollUntil(ms, what, check, intervalMs = 20) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export function tempDir(prefix = 'mcp-sidecar-node-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Writes an executable shell script in `dir` that runs the fake sidecar (fake-sidecar.mjs)
 * with the current Node binary; returns its path, usable as `binaryPath`.
 */
export function fakeSidecar(dir, flags = []) {
  const script = fileURLToPath(new URL('./fake-sidecar.mjs', import.meta.url));
  const path = join(dir, 'fake-sidecar');
  const quoted = [process.execPath, script, ...flags].map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
  writeFileSync(path, `#!/bin/sh\nexec ${quoted.join(' ')} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}
