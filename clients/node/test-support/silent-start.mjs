// silent-start.mjs — owns the "sidecar never answers initialize" program used by
// start.test.mjs: it starts a client against the hostile sidecar's silent-initialize mode with
// the start timeout given as argv[2] (ms), and does nothing else. It prints the code start()
// rejected with as one line; the test checks that the program then ends by itself.

import { join } from 'node:path';
import { SidecarClient } from '../src/index.js';
import { REPO_ROOT } from './env.mjs';

const sidecar = join(REPO_ROOT, 'proto', 'scenarios', 'hostile', 'hostile_sidecar.py');
try {
  await SidecarClient.start({ binaryPath: sidecar, args: ['silent-initialize'], startTimeoutMs: Number(process.argv[2]) });
  process.stdout.write('started\n');
} catch (err) {
  process.stdout.write(`${err.code}\n`);
}
