// stdio-threads.test.mjs — the sidecar reads the stdio Node gives it (libuv makes a Unix socket
// pair per 'pipe' slot, not a pipe) from its own event loop, not through tokio's blocking pool,
// whose stdin keeps a thread parked in read(0) and costs two thread hand-offs per message. Linux:
// what each thread is blocked in is read from /proc.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { test } from 'node:test';
import { SidecarClient } from '../src/index.js';
import { FIXTURE_BIN, SIDECAR_BIN, requireBinaries } from '../test-support/env.mjs';

const READ = { x64: 0, arm64: 63 }[process.arch]; // read(2)'s syscall number

/** The threads of `pid` blocked in read(2) on fd 0: /proc/PID/task/TID/syscall is "NR fd …". */
const readingStdin = (pid) =>
  readdirSync(`/proc/${pid}/task`).filter((task) => {
    const [nr, fd] = readFileSync(`/proc/${pid}/task/${task}/syscall`, 'utf8').split(' ');
    return Number(nr) === READ && Number(fd) === 0;
  });

test('the sidecar reads Node\'s stdio socket without a thread blocked on it', { skip: !(process.platform === 'linux' && READ !== undefined) && 'reads /proc on x64 or arm64 Linux' }, async () => {
  requireBinaries();
  const client = await SidecarClient.start({ binaryPath: SIDECAR_BIN, stderr: 'ignore' });
  try {
    assert.match(readlinkSync(`/proc/${client.pid}/fd/0`), /^socket:/);
    await client.addServer('fx', { command: FIXTURE_BIN });
    const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => client.callTool('mcp__fx__echo', { message: `m${i}` })));
    assert.deepEqual(answers.map((a) => a.text), Array.from({ length: 32 }, (_, i) => `m${i}`));
    // The sidecar now waits for its next line: in epoll, not in a read of fd 0 on a pool thread.
    assert.deepEqual(readingStdin(client.pid), []);
  } finally {
    await client.close();
  }
});
