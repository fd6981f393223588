// unclosed.mjs — owns the "forgot to close()" program used by close.test.mjs: it starts a
// client with one fixture server, prints {sidecarPid, serverPid} as one JSON line, then ends
// without closing — by running out of work (argv[2] = 'natural') or by process.exit ('exit').
// The test then checks that both processes disappear.

import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN } from './env.mjs';

const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
const status = await client.addServer('fx', { command: FIXTURE_BIN });
await client.callTool('mcp__fx__echo', { message: 'x' });
process.stdout.write(`${JSON.stringify({ sidecarPid: client.pid, serverPid: status.pid })}\n`);
if (process.argv[2] === 'exit') process.exit(0);
