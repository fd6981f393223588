// A real TypeScript SDK v2 server (@modelcontextprotocol/server) for the sidecar's era tests.
// Usage: node era-server.mjs <stdio|http> <modern|both>
//   modern: 2026-07-28 only (`initialize` is refused, naming the revision it speaks);
//   both:   serves both eras (the SDK's default).
// Over HTTP it listens on 127.0.0.1 (an ephemeral port) and writes `listening <port>` on stdout.
// Tools: `echo {text}` and `whoami` (answers the era its request came in).
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const [transport, mode] = process.argv.slice(2);

function factory(ctx) {
    const server = new McpServer({ name: 'era-server', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
    server.registerTool('whoami', { description: 'The era of this request', inputSchema: z.object({}) },
        async () => ({ content: [{ type: 'text', text: `era: ${ctx?.era ?? 'unknown'}` }] }));
    return server;
}

if (transport === 'stdio') {
    serveStdio(factory, { legacy: mode === 'modern' ? 'reject' : 'serve' });
} else {
    const handler = createMcpHandler(factory, { legacy: mode === 'modern' ? 'reject' : 'stateless' });
    const server = http.createServer(toNodeHandler(handler));
    server.listen(0, '127.0.0.1', () => {
        process.stdout.write(`listening ${server.address().port}\n`);
    });
}
