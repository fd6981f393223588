// Lists and calls the tools of `mcp-sidecar mcp` through the official TypeScript SDK's client, v1
// (`@modelcontextprotocol/sdk`) or v2 (`@modelcontextprotocol/client`), over stdio or Streamable
// HTTP, and prints what it saw as one JSON object on stdout (the Rust test asserts on it).
//
//   node sdk-client.mjs v1|v2 legacy|auto stdio COMMAND ARG...
//   node sdk-client.mjs v1|v2 legacy|auto http URL
//
// `auto` (v2 only) negotiates the protocol era: against the sidecar it takes the 2026-07-28 one.

const [sdk, mode, kind, ...target] = process.argv.slice(2);

async function connect() {
  if (sdk === "v1") {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const client = new Client({ name: "ts-sdk-v1", version: "1.0.0" });
    const transport =
      kind === "http"
        ? new (await import("@modelcontextprotocol/sdk/client/streamableHttp.js")).StreamableHTTPClientTransport(new URL(target[0]))
        : new (await import("@modelcontextprotocol/sdk/client/stdio.js")).StdioClientTransport({
            command: target[0],
            args: target.slice(1),
            stderr: "ignore",
          });
    await client.connect(transport);
    return { client, version: transport.protocolVersion ?? null };
  }
  const v2 = await import("@modelcontextprotocol/client");
  const client = new v2.Client({ name: "ts-sdk-v2", version: "2.0.0" }, { versionNegotiation: { mode } });
  const transport =
    kind === "http"
      ? new v2.StreamableHTTPClientTransport(new URL(target[0]))
      : new (await import("@modelcontextprotocol/client/stdio")).StdioClientTransport({
          command: target[0],
          args: target.slice(1),
          stderr: "ignore",
        });
  await client.connect(transport);
  return { client, version: client.getNegotiatedProtocolVersion?.() };
}

const { client, version } = await connect();
const listed = await client.listTools();
const call = await client.callTool({ name: "fx__echo", arguments: { message: `from ts ${sdk}` } });
const invalid = await client.callTool({ name: "fx__echo", arguments: { message: 7 } });
let unknown = null;
try {
  await client.callTool({ name: "fx__nope", arguments: {} });
} catch (e) {
  unknown = e.code ?? String(e);
}
console.log(
  JSON.stringify({
    protocolVersion: version ?? null,
    server: client.getServerVersion?.()?.name ?? null,
    tools: listed.tools.map((t) => t.name),
    text: call.content[0]?.text,
    structured: call.structuredContent ?? null,
    invalidIsError: invalid.isError === true,
    unknownCode: unknown,
  }),
);
await client.close();
