#!/usr/bin/env node
// adapters.mjs — the framework adapters' benchmark: per framework (AI SDK, OpenAI Agents JS,
// LangChain.js), the mcp-sidecar adapter against the framework's own MCP client on the same five
// stdio servers from the registries (server-filesystem, server-memory, server-everything from npm;
// mcp-server-time, mcp-server-git from PyPI). Each variant runs as its own "agent process"
// (adapters-agent.mjs), which reports the time from start to the first tool list and the echo calls
// per second through the framework's tool interface; then this script kills it with SIGKILL and
// counts the processes it had started (servers, and the sidecar) still alive 10 s later. The two
// variants of a framework alternate in each round (order flipped every round), so a machine loaded
// by other work weighs on both; the report gives medians and ratios. Not run in CI.
//
//   node adapters.mjs --setup            # once: installs the five servers into the scratch dir
//   node adapters.mjs [--rounds 3] [--calls 300] [--in-flight 16] [--json]
// Scratch dir: $MCP_BENCH_SERVERS, default /tmp/mcp-sidecar-bench-servers (outside the repository).
// Sidecar: $MCP_SIDECAR_BIN, default target/release/mcp-sidecar, else target/debug/.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SCRATCH = process.env.MCP_BENCH_SERVERS || '/tmp/mcp-sidecar-bench-servers';
const NPM_SERVERS = ['@modelcontextprotocol/server-filesystem@2026.8.31', '@modelcontextprotocol/server-memory@2026.8.31', '@modelcontextprotocol/server-everything@2026.8.31'];
const PYPI_SERVERS = ['mcp-server-time==2026.10.19', 'mcp-server-git==2026.10.19'];
const FRAMEWORKS = ['ai-sdk', 'openai-agents', 'langchain'];
const LEFT_BEHIND_AFTER_MS = 10_000;

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i === -1 ? fallback : Number(argv[i + 1]);
};

if (argv.includes('--setup')) {
  setup();
  process.exit(0);
}

const rounds = flag('--rounds', 3);
const calls = flag('--calls', 300);
const inFlight = flag('--in-flight', 16);
const repoTarget = (profile) => fileURLToPath(new URL(`../../../target/${profile}/mcp-sidecar`, import.meta.url));
const sidecarBin = process.env.MCP_SIDECAR_BIN || [repoTarget('release'), repoTarget('debug')].find(existsSync);
const servers = serverConfigs();

const results = [];
for (let round = 0; round < rounds; round++) {
  for (const framework of FRAMEWORKS) {
    const order = round % 2 === 0 ? ['sidecar', 'native'] : ['native', 'sidecar'];
    for (const variant of order) {
      const result = await runAgent(framework, variant);
      results.push(result);
      process.stderr.write(`round ${round + 1}/${rounds} ${framework} ${variant}: ${JSON.stringify(result)}\n`);
    }
  }
}
report(results);

/** Installs the servers into the scratch dir (npm and a Python venv), and a git repo for two of them. */
function setup() {
  mkdirSync(join(SCRATCH, 'root'), { recursive: true });
  const run = (cmd, args, cwd = SCRATCH) => execFileSync(cmd, args, { cwd, stdio: 'inherit' });
  run('npm', ['install', '--prefix', SCRATCH, '--no-audit', '--no-fund', ...NPM_SERVERS]);
  run('python3', ['-m', 'venv', join(SCRATCH, 'venv')]);
  run(join(SCRATCH, 'venv', 'bin', 'pip'), ['install', '--quiet', ...PYPI_SERVERS]);
  const root = join(SCRATCH, 'root');
  if (!existsSync(join(root, '.git'))) {
    writeFileSync(join(root, 'README.md'), 'benchmark root\n');
    run('git', ['init', '-q'], root);
  }
}

function serverConfigs() {
  const bin = (name) => join(SCRATCH, 'node_modules', '.bin', name);
  const py = (name) => join(SCRATCH, 'venv', 'bin', name);
  const root = join(SCRATCH, 'root');
  const configs = {
    filesystem: { command: bin('mcp-server-filesystem'), args: [root] },
    memory: { command: bin('mcp-server-memory'), args: [] },
    everything: { command: bin('mcp-server-everything'), args: ['stdio'] },
    time: { command: py('mcp-server-time'), args: [] },
    git: { command: py('mcp-server-git'), args: ['--repository', root] },
  };
  for (const { command } of Object.values(configs)) {
    if (!existsSync(command)) throw new Error(`${command} is missing: run \`node adapters.mjs --setup\` first`);
  }
  return configs;
}

/** Runs one agent process; returns its figures plus the processes left behind after SIGKILL. */
async function runAgent(framework, variant) {
  const script = fileURLToPath(new URL('./adapters-agent.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, framework, variant, JSON.stringify(servers), String(calls), String(inFlight)], {
    env: { ...process.env, MCP_SIDECAR_BIN: sidecarBin },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The servers' own stderr (banners, tracebacks when their pipe closes) is kept for a failure only.
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8192);
  });
  const [line] = await Promise.race([
    (async () => {
      for await (const l of createInterface({ input: child.stdout })) return [l];
      throw new Error(`${framework} ${variant}: the agent exited without a result:\n${stderr}`);
    })(),
    new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`${framework} ${variant} exited ${code}:\n${stderr}`)))),
  ]);
  const figures = JSON.parse(line);
  const started = descendants(child.pid);
  child.kill('SIGKILL');
  const deadline = Date.now() + LEFT_BEHIND_AFTER_MS;
  let alive = started.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    alive = alive.filter(isAlive);
  }
  for (const pid of alive) {
    try {
      process.kill(pid, 'SIGKILL'); // leave the machine as it was
    } catch {}
  }
  return { ...figures, processes: started.length, leftBehind: alive.length };
}

/** Every process whose parent chain leads to `root` (from /proc). */
function descendants(root) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const found = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/** Alive and not a zombie (a zombie has exited; only its parent has not reaped it). */
function isAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function report(all) {
  const rows = FRAMEWORKS.map((framework) => {
    const of = (variant) => all.filter((r) => r.framework === framework && r.variant === variant);
    const summary = (variant) => {
      const runs = of(variant);
      return {
        tools: runs[0].tools,
        startToListMs: median(runs.map((r) => r.startToListMs)),
        sequentialPerSec: median(runs.map((r) => r.sequentialPerSec)),
        concurrentPerSec: median(runs.map((r) => r.concurrentPerSec)),
        processes: Math.max(...runs.map((r) => r.processes)),
        leftBehind: Math.max(...runs.map((r) => r.leftBehind)),
      };
    };
    return { framework, sidecar: summary('sidecar'), native: summary('native') };
  });
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ rounds, calls, inFlight, sidecarBin, rows, runs: all })}\n`);
    return;
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`Node ${process.version}, ${cpus().length} CPUs, load ${load}; ${rounds} rounds, medians; ${calls} echo calls each way, ${inFlight} in flight`);
  console.log(`sidecar: ${sidecarBin}`);
  console.log('| framework | client | tools | start → first tool list (ms) | calls/s sequential | calls/s, ' + inFlight + ' in flight | processes left after kill -9 (of started) |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  const f = (n, d = 0) => n.toFixed(d);
  for (const { framework, sidecar, native } of rows) {
    for (const [name, s] of [['mcp-sidecar adapter', sidecar], ['framework’s own MCP client', native]]) {
      console.log(`| ${framework} | ${name} | ${s.tools} | ${f(s.startToListMs)} | ${f(s.sequentialPerSec)} | ${f(s.concurrentPerSec)} | ${s.leftBehind} of ${s.processes} |`);
    }
    console.log(
      `| ${framework} | ratio adapter / own | | ${f(sidecar.startToListMs / native.startToListMs, 2)}× | ${f(sidecar.sequentialPerSec / native.sequentialPerSec, 2)}× | ${f(sidecar.concurrentPerSec / native.concurrentPerSec, 2)}× | |`,
    );
  }
}
