// linemem.mjs — what one over-long line from the sidecar costs this client: the hostile sidecar
// (proto/scenarios/hostile) answers servers/list with one line of --bytes bytes (100 MB by
// default, over the default 64 MiB maxLineBytes); prints the code the call failed with and the
// process's RSS before the call, at its peak (VmHWM) and after a GC with the client still open,
// and how long close() then took.
//
//   node --expose-gc clients/node/bench/linemem.mjs [--bytes N]
//
// The same measurement for the other clients: clients/go/cmd/linemem, clients/python/bench/linemem.py.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SidecarClient } from '../src/index.js';

const sidecar = fileURLToPath(new URL('../../../proto/scenarios/hostile/hostile_sidecar.py', import.meta.url));
const at = process.argv.indexOf('--bytes');
const size = at === -1 ? 100 * 1024 * 1024 : Number(process.argv[at + 1]);

function status(field) {
  const line = readFileSync('/proc/self/status', 'ascii').split('\n').find((l) => l.startsWith(`${field}:`));
  return line === undefined ? '?' : `${((Number(line.split(/\s+/)[1]) * 1024) / 1e6).toFixed(1)} MB`;
}
const collect = () => globalThis.gc?.();

const client = await SidecarClient.start({ binaryPath: sidecar, args: ['huge-line', '--bytes', String(size)] });
collect();
const before = status('VmRSS');
const code = await client.listServers().then(() => 'none', (err) => err.code);
collect();
const after = status('VmRSS');
const buffers = (process.memoryUsage().arrayBuffers / 1e6).toFixed(1);
const started = performance.now();
const exit = await client.close();
const closedIn = (performance.now() - started) / 1000;
console.log(
  `node: a ${size}-byte line: ${code}; RSS ${before} before, peak ${status('VmHWM')}, ${after} after (Buffers still allocated: ${buffers} MB); ` +
    `close() ${closedIn.toFixed(2)} s, exit ${JSON.stringify(exit)}${globalThis.gc ? '' : ' (run with --expose-gc for the GC)'}`,
);
