#!/usr/bin/env node
// mcp-sidecar.js — owns the package's `mcp-sidecar` command (`npx mcp-sidecar doctor`, an npm
// script): it finds the binary for this platform as the client does (findBinary; this file itself
// is never taken for the sidecar when found on PATH) and runs it with this process's arguments
// and stdio, then ends as it ended: the same exit code, or the same signal.

import { spawn } from 'node:child_process';
import { findBinary } from '../src/binary.js';

let binary;
try {
  binary = findBinary();
} catch (err) {
  process.stderr.write(`mcp-sidecar: ${err.message}\n`);
  process.exit(1);
}

const child = spawn(binary.path, process.argv.slice(2), { stdio: 'inherit' });

// A signal sent to this launcher alone (kill PID) is passed on; a terminal's Ctrl-C reaches the
// whole process group, the child included, and the handler only keeps this process alive until
// the child has decided what to do with it.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (err) => {
  process.stderr.write(`mcp-sidecar: cannot run ${binary.path}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  for (const s of forwarded) process.off(s, forward);
  if (signal !== null) {
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
