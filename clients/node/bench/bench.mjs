#!/usr/bin/env node
// bench.mjs — owns the benchmark of this client against the official MCP TypeScript SDK
// (`Client` + `StdioClientTransport`), both calling the same mcp-fixture `echo`: this client goes
// Node -> mcp-sidecar -> fixture, the SDK goes Node -> fixture directly. Measures sequential
// latency (p50/p99), calls/s with 64 in flight (with the CPU each process spent per call, their
// sum, and each process's share of a core: the one near 100 % bounds the pipeline), cold start and
// RSS. A third column, "raw lines",
// is the floor for any Node client of the sidecar (hand-written JSON lines, no API), so the
// client's own cost can be told from the sidecar's. Each column runs in its own Node process so
// JIT state and RSS do not mix. Prints one side-by-side table (or --json).
//
//   cd clients/node/bench && npm ci && node bench.mjs [--quick] [--json]
// Binaries: MCP_SIDECAR_BIN / MCP_FIXTURE_BIN, else target/release/ (else target/debug/) of the repo.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    worker: { type: 'string' },
    quick: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    sequential: { type: 'string' },
    pipelined: { type: 'string' },
    inflight: { type: 'string', default: '64' },
    starts: { type: 'string' },
  },
  strict: true,
});
const scale = opts.quick ? 0.1 : 1;
const SEQUENTIAL = Number(opts.sequential ?? Math.round(20_000 * scale));
const PIPELINED = Number(opts.pipelined ?? Math.round(200_000 * scale));
const IN_FLIGHT = Number(opts.inflight);
const STARTS = Number(opts.starts ?? (opts.quick ? 5 : 20));
const WARMUP = Math.round(2000 * scale);

function binary(name) {
  const envName = name === 'mcp-sidecar' ? 'MCP_SIDECAR_BIN' : 'MCP_FIXTURE_BIN';
  if (process.env[envName]) return process.env[envName];
  for (const profile of ['release', 'debug']) {
    const path = fileURLToPath(new URL(`../../../target/${profile}/${name}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error(`no ${name}: build it (cargo build --release --workspace) or set ${envName}`);
}

const rssMiB = (pid) => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
    return Number(kb) / 1024;
  } catch {
    return null;
  }
};
// Run time of every thread of `pid` so far (ns, from /proc/PID/task/N/schedstat), or null off Linux.
const runNs = (pid) => {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns;
  } catch {
    return null;
  }
};
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One side's driver: start/stop a session, call echo, and the pids whose RSS counts. */
async function driver(kind) {
  const fixture = binary('mcp-fixture');
  if (kind === 'sidecar') {
    const { SidecarClient } = await import('../src/index.js');
    const sidecar = binary('mcp-sidecar');
    return {
      async open() {
        const t0 = performance.now();
        const client = await SidecarClient.start({ binaryPath: sidecar, stderr: 'ignore' });
        const t1 = performance.now();
        const status = await client.addServer('fx', { command: fixture });
        const t2 = performance.now();
        return {
          handshakeMs: t1 - t0,
          readyMs: t2 - t0,
          call: (message) => client.callTool('mcp__fx__echo', { message }),
          pids: { sidecar: client.pid, fixture: status.pid },
          close: () => client.close(),
        };
      },
    };
  }
  if (kind === 'raw') {
    // Floor for any Node client of the sidecar: hand-written lines over the pipes, no API.
    const { spawn } = await import('node:child_process');
    const sidecar = binary('mcp-sidecar');
    return {
      async open() {
        const t0 = performance.now();
        const child = spawn(sidecar, [], { stdio: ['pipe', 'pipe', 'ignore'] });
        const waiting = new Map();
        let id = 0;
        let rest = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop();
          for (const line of lines) {
            const msg = JSON.parse(line);
            if (msg.id !== undefined) {
              waiting.get(msg.id)(msg.result);
              waiting.delete(msg.id);
            }
          }
        });
        const request = (method, params) => new Promise((resolve) => {
          id += 1;
          waiting.set(id, resolve);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
        });
        await request('initialize', { protocolVersion: 1 });
        const t1 = performance.now();
        const status = await request('servers/add', { name: 'fx', config: { command: fixture } });
        const t2 = performance.now();
        return {
          handshakeMs: t1 - t0,
          readyMs: t2 - t0,
          call: (message) => request('tools/call', { name: 'mcp__fx__echo', arguments: { message } }),
          pids: { sidecar: child.pid, fixture: status.pid },
          close: () => new Promise((resolve) => {
            child.on('close', resolve);
            child.stdin.end();
          }),
        };
      },
    };
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  return {
    async open() {
      const t0 = performance.now();
      const client = new Client({ name: 'bench', version: '1.0.0' });
      const transport = new StdioClientTransport({ command: fixture, args: [], stderr: 'ignore' });
      await client.connect(transport);
      const t1 = performance.now();
      await client.listTools();
      await client.listTools({ cursor: 'page-2' }); // the fixture pages its tools; the sidecar reads both
      const t2 = performance.now();
      return {
        handshakeMs: t1 - t0,
        readyMs: t2 - t0,
        call: (message) => client.callTool({ name: 'echo', arguments: { message } }),
        pids: { fixture: transport.pid },
        close: () => client.close(),
      };
    },
  };
}

async function worker(kind) {
  const d = await driver(kind);
  const handshake = [];
  const ready = [];
  for (let i = 0; i < STARTS; i += 1) {
    const s = await d.open();
    handshake.push(s.handshakeMs);
    ready.push(s.readyMs);
    await s.call('warm');
    await s.close();
  }
  const s = await d.open();
  for (let i = 0; i < WARMUP; i += 1) await s.call('warm-up');
  const lat = new Float64Array(SEQUENTIAL);
  for (let i = 0; i < SEQUENTIAL; i += 1) {
    const t0 = process.hrtime.bigint();
    await s.call('hello');
    lat[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  lat.sort();
  let next = 0;
  const lane = async () => {
    while (next < PIPELINED) {
      next += 1;
      await s.call('hello');
    }
  };
  const pidsCpu0 = Object.fromEntries(Object.entries(s.pids).map(([k, pid]) => [k, runNs(pid)]));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // The children's CPU per call over the same calls: where the rest of the time goes.
  const childCpuUsPerCall = Object.fromEntries(
    Object.entries(s.pids).map(([k, pid]) => {
      const after = runNs(pid);
      return [k, after === null || pidsCpu0[k] === null ? null : (after - pidsCpu0[k]) / 1000 / PIPELINED];
    }),
  );
  const result = {
    kind,
    coldStartHandshakeMs: median(handshake),
    coldStartReadyMs: median(ready),
    p50Us: percentile(lat, 50),
    p99Us: percentile(lat, 99),
    meanUs: lat.reduce((a, b) => a + b, 0) / lat.length,
    callsPerSecond: PIPELINED / seconds,
    nodeCpuUsPerCall: (cpu.user + cpu.system) / PIPELINED,
    childCpuUsPerCall,
    nodeRssMiB: process.memoryUsage().rss / 1024 / 1024,
    childRssMiB: Object.fromEntries(Object.entries(s.pids).map(([k, pid]) => [k, rssMiB(pid)])),
  };
  await s.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (opts.worker) {
  await worker(opts.worker);
} else {
  const self = fileURLToPath(import.meta.url);
  const args = ['--inflight', String(IN_FLIGHT), '--sequential', String(SEQUENTIAL), '--pipelined', String(PIPELINED), '--starts', String(STARTS)];
  const run = (kind) => JSON.parse(execFileSync(process.execPath, [self, '--worker', kind, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const totalCpuUsPerCall = (r) => Object.values(r.childCpuUsPerCall).reduce((sum, us) => (sum === null || us === null ? null : sum + us), r.nodeCpuUsPerCall);
  const busyPercent = (r, usPerCall) => (usPerCall === null || usPerCall === undefined ? null : (usPerCall * r.callsPerSecond) / 1e4);
  const ours = run('sidecar');
  const raw = run('raw');
  const sdk = run('sdk');
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ours, raw, sdk })}\n`);
  } else {
    const f = (x, d = 1) => (x === null || x === undefined ? '-' : x.toFixed(d));
    const row = (name, key, d) => [name, f(ours[key], d), f(raw[key], d), f(sdk[key], d)];
    const rows = [
      row('sequential p50 (µs)', 'p50Us'),
      row('sequential p99 (µs)', 'p99Us'),
      row('sequential mean (µs)', 'meanUs'),
      row(`calls/s, ${IN_FLIGHT} in flight`, 'callsPerSecond', 0),
      row('Node CPU µs per pipelined call', 'nodeCpuUsPerCall', 2),
      ['mcp-sidecar CPU µs per pipelined call', f(ours.childCpuUsPerCall.sidecar, 2), f(raw.childCpuUsPerCall.sidecar, 2), '-'],
      ['fixture CPU µs per pipelined call', f(ours.childCpuUsPerCall.fixture, 2), f(raw.childCpuUsPerCall.fixture, 2), f(sdk.childCpuUsPerCall.fixture, 2)],
      ['all processes CPU µs per pipelined call', ...[ours, raw, sdk].map((r) => f(totalCpuUsPerCall(r), 2))],
      // CPU per call times calls/s: a process near 100 % of a core bounds the pipeline.
      ['Node busy (% of one core)', ...[ours, raw, sdk].map((r) => f(busyPercent(r, r.nodeCpuUsPerCall), 0))],
      ['mcp-sidecar busy (% of one core)', f(busyPercent(ours, ours.childCpuUsPerCall.sidecar), 0), f(busyPercent(raw, raw.childCpuUsPerCall.sidecar), 0), '-'],
      ['fixture busy (% of one core)', ...[ours, raw, sdk].map((r) => f(busyPercent(r, r.childCpuUsPerCall.fixture), 0))],
      row('cold start: spawn + initialize (ms)', 'coldStartHandshakeMs'),
      row('cold start: until tools are callable (ms)', 'coldStartReadyMs'),
      row('Node process RSS (MiB)', 'nodeRssMiB'),
      ['mcp-sidecar RSS (MiB)', f(ours.childRssMiB.sidecar), f(raw.childRssMiB.sidecar), '-'],
      ['fixture RSS (MiB)', f(ours.childRssMiB.fixture), f(raw.childRssMiB.fixture), f(sdk.childRssMiB.fixture)],
    ];
    const w0 = Math.max(...rows.map((r) => r[0].length));
    console.log(`Node ${process.version}, ${availableParallelism()} CPUs; ${SEQUENTIAL} sequential calls after ${WARMUP} warm-up, ${PIPELINED} pipelined, cold start = median of ${STARTS}`);
    console.log(`sidecar: ${binary('mcp-sidecar')}\nfixture: ${binary('mcp-fixture')}`);
    const head = [['mcp-sidecar client', 'raw lines', '@modelcontextprotocol/sdk'], ['(via sidecar)', '(via sidecar)', '(direct to fixture)']];
    const widths = [20, 14, 26];
    for (const h of head) console.log(`${''.padEnd(w0)}${h.map((c, i) => `  ${c.padStart(widths[i])}`).join('')}`);
    for (const [name, ...cells] of rows) console.log(`${name.padEnd(w0)}${cells.map((c, i) => `  ${c.padStart(widths[i])}`).join('')}`);
    console.log(`this client against the SDK direct: calls/s ${f(ours.callsPerSecond / sdk.callsPerSecond, 2)}×, Node CPU per call ${f(ours.nodeCpuUsPerCall / sdk.nodeCpuUsPerCall, 2)}×, all processes' CPU per call ${f(totalCpuUsPerCall(ours) / totalCpuUsPerCall(sdk), 2)}×`);
  }
}
