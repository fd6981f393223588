// fake-sidecar.mjs — owns a scripted stand-in for mcp-sidecar used by the focused tests to
// observe and provoke exact wire behaviour. It answers `initialize`, `ping` and `shutdown` like
// the real one; `tools/call` does what the tool name says:
//   hang     never answers            echo    answers {text: arguments.message}
//   notify   sends arguments.count `test/n` notifications {i}, then answers
//   bigline  writes one line of arguments.bytes bytes      garbage  writes a non-JSON line
//   crash    writes arguments.stderr to stderr, exits with arguments.code
// Every `notifications/cancelled` it receives is echoed back as a `test/cancelled`
// notification carrying the raw line. Flag --ignore-shutdown: ignore shutdown, stdin EOF and
// SIGTERM (only SIGKILL ends it).

const ignoreShutdown = process.argv.includes('--ignore-shutdown');
const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
const reply = (id, result) => send({ jsonrpc: '2.0', id, result });

if (ignoreShutdown) {
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1 << 30);
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) !== -1) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim() !== '') handle(line);
  }
});
process.stdin.on('end', () => {
  if (!ignoreShutdown) process.exit(0);
});

function handle(line) {
  const msg = JSON.parse(line);
  const { id, method, params = {} } = msg;
  switch (method) {
    case 'initialize':
      return reply(id, {
        protocolVersion: 1,
        serverInfo: { name: 'fake-sidecar', version: '0.0.0' },
        capabilities: { toolFormats: ['openai'], transports: ['stdio'], cancellation: true },
      });
    case 'ping':
      return reply(id, {});
    case 'shutdown':
      if (ignoreShutdown) return undefined;
      reply(id, {});
      return process.stdout.write('', () => process.exit(0));
    case 'notifications/cancelled':
      return send({ jsonrpc: '2.0', method: 'test/cancelled', params: { requestId: params.requestId, line } });
    case 'tools/call':
      return call(id, params.name, params.arguments ?? {});
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method ${method}`, data: { code: 'METHOD_NOT_FOUND', method } } });
  }
}

function call(id, name, args) {
  switch (name) {
    case 'hang':
      return undefined;
    case 'echo':
      return reply(id, { isError: false, content: [], text: args.message, output: args.message, server: 'fake', tool: 'echo', durationMs: 0 });
    case 'notify':
      for (let i = 0; i < args.count; i += 1) send({ jsonrpc: '2.0', method: 'test/n', params: { i } });
      return reply(id, { isError: false, content: [], text: '', output: '', server: 'fake', tool: 'notify', durationMs: 0 });
    case 'bigline':
      return process.stdout.write(`{"jsonrpc":"2.0","method":"test/big","params":{"s":"${'x'.repeat(args.bytes)}"}}\n`);
    case 'garbage':
      return process.stdout.write('this is not json\n');
    case 'crash':
      process.stderr.write(`${args.stderr ?? ''}\n`);
      return process.stderr.write('', () => process.exit(args.code ?? 1));
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32020, message: `no tool ${name}`, data: { code: 'TOOL_NOT_FOUND', name } } });
  }
}
