// fake-sidecar.mjs — owns a scripted stand-in for mcp-sidecar used by the focused tests to
// observe and provoke exact wire behaviour. It answers `initialize`, `ping` and `shutdown` like
// the real one; `tools/call` does what the tool name says:
//   hang     never answers            echo    answers {text: arguments.message}
//   notify   sends arguments.count `test/n` notifications {i}, then answers
//   bigline  writes one line of arguments.bytes bytes      garbage  writes a non-JSON line
//   crash    writes arguments.stderr to stderr, exits with arguments.code
//   progress sends arguments.count `notifications/progress` for this call, answers, then sends
//            arguments.late more for it (which no callback may see: the call has ended)
//   init     answers {structuredContent: the params of initialize}
//   ask      sends the host a request {id: "sidecar-N", method: arguments.method, params:
//            arguments.params} and answers the call with the host's response once it comes
//            (structuredContent: the response); with arguments.withdraw, sends
//            `notifications/cancelled` for it at once and answers {structuredContent: {withdrawn: id}}
// Every response of the host to an `ask` is also echoed as a `test/answer` notification {id, line}.
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

let initializeParams = null;
const asks = new Map(); // id of a request to the host -> id of the tools/call that sent it
let nextAsk = 0;

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
  if (method === undefined) return answered(msg, line);
  switch (method) {
    case 'initialize':
      initializeParams = params;
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
    case 'progress': {
      const progress = (n) => send({ jsonrpc: '2.0', method: 'notifications/progress', params: { requestId: id, progress: n, total: args.count } });
      for (let n = 1; n <= args.count; n += 1) progress(n);
      reply(id, { isError: false, content: [], text: '', output: '', server: 'fake', tool: 'progress', durationMs: 0 });
      for (let n = 1; n <= (args.late ?? 0); n += 1) progress(args.count + n);
      return undefined;
    }
    case 'init':
      return reply(id, { isError: false, content: [], structuredContent: initializeParams, text: '', output: '', server: 'fake', tool: 'init', durationMs: 0 });
    case 'ask': {
      nextAsk += 1;
      const askId = `sidecar-${nextAsk}`;
      send({ jsonrpc: '2.0', id: askId, method: args.method, params: args.params ?? {} });
      if (!args.withdraw) {
        asks.set(askId, id);
        return undefined;
      }
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: askId, reason: 'withdrawn by the fake' } });
      return reply(id, { isError: false, content: [], structuredContent: { withdrawn: askId }, text: '', output: '', server: 'fake', tool: 'ask', durationMs: 0 });
    }
    case 'crash':
      process.stderr.write(`${args.stderr ?? ''}\n`);
      return process.stderr.write('', () => process.exit(args.code ?? 1));
    default:
      return send({ jsonrpc: '2.0', id, error: { code: -32020, message: `no tool ${name}`, data: { code: 'TOOL_NOT_FOUND', name } } });
  }
}

/** The host's response to one of the fake's requests: echoed, and the `ask` call answered. */
function answered(msg, line) {
  send({ jsonrpc: '2.0', method: 'test/answer', params: { id: msg.id, line } });
  const callId = asks.get(msg.id);
  if (callId === undefined) return;
  asks.delete(msg.id);
  reply(callId, { isError: false, content: [], structuredContent: msg, text: '', output: '', server: 'fake', tool: 'ask', durationMs: 0 });
}
