// What `mcp-sidecar mcp` passes on besides answers, seen by the official TypeScript SDK's client,
// v1 (`@modelcontextprotocol/sdk`) or v2 (`@modelcontextprotocol/client`), in the legacy era over
// stdio or Streamable HTTP: a call's progress reaches its `onprogress`; a server's log reaches the
// `notifications/message` handler once the client set a level; the client's roots change reaches
// the server, which asks the client for its roots again. Prints what it saw as one JSON object.
//
//   node sdk-relay.mjs v1|v2 stdio COMMAND ARG...
//   node sdk-relay.mjs v1|v2 http URL
//
// Waits are for handlers (a promise each), each bounded so that a missing one fails the run.

const [sdk, kind, ...target] = process.argv.slice(2);
const BOUND_MS = 20000;

function signal() {
  let fire;
  const fired = new Promise((resolve) => (fire = resolve));
  return { fire, fired };
}

function bounded(promise, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${BOUND_MS} ms`)), BOUND_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const logs = [];
const logged = signal();
const rootsAsked = signal();
const onLog = (notification) => {
  const { level, logger, data } = notification.params;
  logs.push({ level, logger, data });
  if (data === "from the server") logged.fire();
};
const onRoots = () => {
  rootsAsked.fire();
  return { roots: [{ uri: "file:///work", name: "work" }] };
};
const capabilities = { roots: { listChanged: true } };

async function connect() {
  if (sdk === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const types = await import("@modelcontextprotocol/sdk/types.js");
    const client = new Client({ name: "ts-sdk-v1", version: "1.0.0" }, { capabilities });
    client.setNotificationHandler(types.LoggingMessageNotificationSchema, onLog);
    client.setRequestHandler(types.ListRootsRequestSchema, onRoots);
    const transport =
      kind === "http"
        ? new (await import("@modelcontextprotocol/sdk/client/streamableHttp.js")).StreamableHTTPClientTransport(new URL(target[0]))
        : new (await import("@modelcontextprotocol/sdk/client/stdio.js")).StdioClientTransport({
            command: target[0],
            args: target.slice(1),
            stderr: "ignore",
          });
    await client.connect(transport);
    const call = (params, onprogress) => client.callTool(params, undefined, onprogress ? { onprogress } : undefined);
    return { client, call };
  }
  const v2 = await import("@modelcontextprotocol/client");
  const client = new v2.Client(
    { name: "ts-sdk-v2", version: "2.0.0" },
    { capabilities, versionNegotiation: { mode: "legacy" } },
  );
  client.setNotificationHandler("notifications/message", onLog);
  client.setRequestHandler("roots/list", onRoots);
  const transport =
    kind === "http"
      ? new v2.StreamableHTTPClientTransport(new URL(target[0]))
      : new (await import("@modelcontextprotocol/client/stdio")).StdioClientTransport({
          command: target[0],
          args: target.slice(1),
          stderr: "ignore",
        });
  await client.connect(transport);
  const call = (params, onprogress) => client.callTool(params, onprogress ? { onprogress } : undefined);
  return { client, call };
}

const { client, call } = await connect();
const progress = [];
// The SDK hands a notification to its handler a microtask later but takes a response at once, and
// forgets a call's progress handler with its response: a progress right before the answer (the
// last one always is) never reaches `onprogress`. The steps are spaced so that the first comes well
// before the answer.
const done = await call({ name: "fx__progress", arguments: { steps: 3, intervalMs: 400 } }, (p) => progress.push(p));
await client.setLoggingLevel("info");
await call({ name: "fx__emit", arguments: { kind: "log", level: "debug", data: "too low" } });
await call({ name: "fx__emit", arguments: { kind: "log", level: "warning", logger: "db", data: "from the server" } });
await bounded(logged.fired, "log message");
await client.sendRootsListChanged();
await bounded(rootsAsked.fired, "roots/list");
const state = await call({ name: "fx__client_state", arguments: {} });
console.log(
  JSON.stringify({
    progressResult: done.structuredContent ?? null,
    progress,
    logs,
    rootsListChanged: state.structuredContent?.rootsListChanged ?? null,
  }),
);
await client.close();
