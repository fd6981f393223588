#!/usr/bin/env node
// batching.mjs — owns one measure of how this client batches its I/O: over pipelined `echo` calls
// through the sidecar (64 in flight), how many calls go out per write to the sidecar's stdin and
// come in per `data` chunk of its stdout, and the Node CPU per call. Writes and chunks are counted
// on `net.Socket` (Node's child stdio), so nothing in the client is changed to measure it.
//
//   node bench/batching.mjs [--calls 50000] [--inflight 64]
// Binaries: MCP_SIDECAR_BIN / MCP_FIXTURE_BIN, else target/release/ (else target/debug/) of the repo.

import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SidecarClient } from '../src/index.js';

const { values: opts } = parseArgs({
  options: { calls: { type: 'string', default: '50000' }, inflight: { type: 'string', default: '64' } },
  strict: true,
});
const CALLS = Number(opts.calls);
const IN_FLIGHT = Number(opts.inflight);

function binary(name, envName) {
  if (process.env[envName]) return process.env[envName];
  for (const profile of ['release', 'debug']) {
    const path = fileURLToPath(new URL(`../../../target/${profile}/${name}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`no ${name}: build it (cargo build --release --workspace) or set ${envName}`);
}

const client = await SidecarClient.start({ binaryPath: binary('mcp-sidecar', 'MCP_SIDECAR_BIN'), stderr: 'ignore' });
await client.addServer('fx', { command: binary('mcp-fixture', 'MCP_FIXTURE_BIN') });
for (let i = 0; i < 2000; i += 1) await client.callTool('mcp__fx__echo', { message: 'warm-up' });

let writes = 0;
let chunks = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function countedWrite(...args) {
  writes += 1;
  return write.apply(this, args);
};
const emit = net.Socket.prototype.emit;
net.Socket.prototype.emit = function countedEmit(event, ...args) {
  if (event === 'data') chunks += 1;
  return emit.call(this, event, ...args);
};

let next = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next < CALLS) {
      next += 1;
      await client.callTool('mcp__fx__echo', { message: 'hello' });
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
net.Socket.prototype.write = write;
net.Socket.prototype.emit = emit;
await client.close();
console.log(
  `${CALLS} calls, ${IN_FLIGHT} in flight: ${(CALLS / seconds).toFixed(0)} calls/s, ` +
    `${((cpu.user + cpu.system) / CALLS).toFixed(2)} µs of Node CPU per call, ` +
    `${(CALLS / writes).toFixed(1)} calls per write, ${(CALLS / chunks).toFixed(1)} per stdout chunk`,
);
