// default-logs.mjs — owns the program sidecar-logs.test.mjs reads the stderr of: a client started
// with no log option at all, one server that starts and one that cannot, a call, then close().
// Whatever the sidecar logs by default reaches this process's stderr only through the client.

import { start } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN } from './env.mjs';

const client = await start({ binaryPath: SIDECAR_BIN });
try {
  await client.addServer('fx', { command: FIXTURE_BIN });
  await client.addServer('missing', { command: '/nonexistent/mcp-server' });
  await client.callTool('mcp__fx__echo', { message: 'x' });
} finally {
  await client.close();
}
