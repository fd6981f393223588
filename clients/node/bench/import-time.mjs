#!/usr/bin/env node
// import-time.mjs — what importing the client costs: the median time of `import('mcp-sidecar')` in
// fresh Node processes, for this checkout and, with `--against DIR`, another checkout of
// clients/node (e.g. one from before a change), alternated so machine load weighs on both; plus
// each framework adapter's subpath, which loads its framework (the price only its users pay).
//
//   node import-time.mjs [--runs 30] [--against /path/to/other/clients/node]

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(option('--runs') ?? 30);
const here = fileURLToPath(new URL('..', import.meta.url));
const against = option('--against');

/** Milliseconds one fresh process takes to import `file`. */
function importMs(file) {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

const targets = { 'mcp-sidecar (this checkout)': `${here}src/index.js` };
if (against) targets[`mcp-sidecar (${against})`] = `${against.replace(/\/$/, '')}/src/index.js`;
for (const adapter of ['ai-sdk', 'openai-agents', 'langchain']) targets[`mcp-sidecar/${adapter}`] = `${here}src/adapters/${adapter}.js`;

const times = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
for (let i = 0; i < runs; i++) {
  for (const [name, file] of Object.entries(targets)) times[name].push(importMs(file));
}
const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
console.log(`Node ${process.version}; median of ${runs} fresh processes each, alternated`);
for (const [name, values] of Object.entries(times)) console.log(`${median(values).toFixed(2).padStart(9)} ms  import ${name}`);
