// The conformance suite's reference server, as a server of both eras over Streamable HTTP: every
// tool, resource and prompt the suite's server scenarios call by name (`conformance-catalogue.mjs`),
// written once with the official TypeScript SDK v2 (`@modelcontextprotocol/server`), its questions
// as `input_required` results under the keys the scenarios name (`user_name`, `capital_question`…).
// The SDK serves them as they are to a 2026-07-28 client and, through its legacy shim, as real
// `sampling/createMessage` / `elicitation/create` / `roots/list` requests to a 2025-era session.
//
// The suite's own reference server (its repository's examples/servers/typescript) is not in the
// npm package; this one behaves as each scenario's description asks, the same behaviour the stdio
// fixture has, so `mcp-sidecar mcp --http` can be run against it with the downstream in either era.
//
// Usage: node conformance-reference.mjs — listens on 127.0.0.1 (an ephemeral port) and writes
// `listening <port>` on stdout. 2025-era traffic gets a session (so the server's own requests can
// be answered); 2026-07-28 traffic is served per request.
import http from "node:http";
import { randomUUID } from "node:crypto";
import {
  Server,
  createMcpHandler,
  inputRequired,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  ProtocolError,
} from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { PNG, WAV, text, sleep, tools, resources, prompts } from "./conformance-catalogue.mjs";

const capabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
};

const nameSchema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const elicit = (message, requestedSchema = nameSchema) => inputRequired.elicit({ message, requestedSchema });
const sample = (prompt, maxTokens = 100) =>
  inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens });

// The answers a request carries: the retry's `inputResponses`, plus earlier rounds' kept in the
// state this server minted (plain JSON: a test server, nothing to protect).
function answers(ctx) {
  let carried = {};
  const state = ctx.mcpReq.requestState?.();
  if (typeof state === "string" && state.startsWith("{")) carried = JSON.parse(state);
  return { ...carried, ...(ctx.mcpReq.inputResponses ?? {}) };
}

// Returns the answers to `questions` (key → embedded request) when all are there, or the
// `input_required` result that asks for the missing ones.
function ask(ctx, questions) {
  const got = answers(ctx);
  const missing = Object.fromEntries(Object.entries(questions).filter(([k]) => got[k] === undefined));
  if (Object.keys(missing).length === 0) return { got };
  return { ask: inputRequired({ inputRequests: missing, requestState: JSON.stringify(got) }) };
}

const content = (answer) => answer?.content ?? {};
const sampled = (answer) => {
  const c = answer?.content;
  return Array.isArray(c) ? c.map((b) => b.text).join("") : c?.text ?? JSON.stringify(c);
};
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const envelopeCapabilities = (ctx) => ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES];

let extraTool = null;
const triggerUpdate = {
  name: "test_trigger_resource_update",
  description: "Says test://watched-resource changed",
  inputSchema: { type: "object", properties: {} },
};
const subscriptions = new Set();

function callTool(request, ctx) {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_text":
      return text("This is a simple text response for testing.");
    case "test_image_content":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return {
        content: [
          { type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } },
        ],
      };
    case "test_multiple_content_types":
      return {
        content: [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' } },
        ],
      };
    case "test_tool_with_logging":
      return (async () => {
        await ctx.mcpReq.log("info", "Tool execution started", "conformance-reference");
        await sleep(50);
        await ctx.mcpReq.log("info", "Tool processing data", "conformance-reference");
        await sleep(50);
        await ctx.mcpReq.log("info", "Tool execution completed", "conformance-reference");
        return text("Tool with logging executed successfully");
      })();
    case "test_logging_tool":
      return ctx.mcpReq.log("info", "test_logging_tool ran", "conformance-reference").then(() => text("logged"));
    case "test_error_handling":
      return { isError: true, content: [{ type: "text", text: "This tool intentionally returns an error for testing" }] };
    case "test_tool_with_progress":
      return (async () => {
        const token = request.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined) {
            await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress, total: 100 } });
          }
          if (progress < 100) await sleep(50);
        }
        return text("Tool with progress executed successfully");
      })();
    case "test_sampling":
    case "test_missing_capability": {
      const r = ask(ctx, { answer: sample(args.prompt ?? "Say hello") });
      return r.ask ?? text(`LLM response: ${sampled(r.got.answer)}`);
    }
    case "test_elicitation":
    case "test_streaming_elicitation": {
      const r = ask(ctx, {
        details: elicit(args.message ?? "Please provide your details", {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        }),
      });
      return r.ask ?? text(`User response: action=${r.got.details.action}, content=${JSON.stringify(content(r.got.details))}`);
    }
    case "test_elicitation_sep1034_defaults": {
      const r = ask(ctx, {
        form: elicit("Please review the defaults", {
          type: "object",
          properties: {
            name: { type: "string", default: "John Doe" },
            age: { type: "integer", default: 30 },
            score: { type: "number", default: 95.5 },
            status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", default: true },
          },
        }),
      });
      return r.ask ?? text(`Elicitation completed: action=${r.got.form.action}, content=${JSON.stringify(content(r.got.form))}`);
    }
    case "test_elicitation_sep1330_enums": {
      const r = ask(ctx, {
        choice: elicit("Please choose", {
          type: "object",
          properties: {
            untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
            untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
            titledMulti: {
              type: "array",
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        }),
      });
      return r.ask ?? text(`Elicitation completed: action=${r.got.choice.action}, content=${JSON.stringify(content(r.got.choice))}`);
    }
    case "test_trigger_tool_change":
      extraTool = { name: `test_added_${Date.now()}`, description: "Added at runtime", inputSchema: { type: "object", properties: {} } };
      notifyAll((s) => s.sendToolListChanged(), (h) => h.notify.toolsChanged());
      return text("tool list changed");
    case "test_input_required_result_elicitation":
    case "test_input_required_result_tampered_state": {
      const r = ask(ctx, { user_name: elicit("What is your name?") });
      return r.ask ?? text(`Hello, ${content(r.got.user_name).name ?? "stranger"}!`);
    }
    case "test_input_required_result_sampling": {
      const r = ask(ctx, { capital_question: sample("What is the capital of France?") });
      return r.ask ?? text(`The model said: ${sampled(r.got.capital_question)}`);
    }
    case "test_input_required_result_capabilities": {
      // Only what the client declared on this request (SEP-2322); a 2025-era session declared
      // its capabilities at initialize, and the SDK's shim checks those.
      const declared = envelopeCapabilities(ctx) ?? { sampling: {}, elicitation: {} };
      const questions = {};
      if (declared.sampling) questions.capital_question = sample("What is the capital of France?");
      if (declared.elicitation) questions.user_name = elicit("What is your name?");
      if (Object.keys(questions).length === 0) return text("nothing to ask: the client declared neither sampling nor elicitation");
      const r = ask(ctx, questions);
      return r.ask ?? text(`answered: ${Object.keys(r.got).sort().join(", ")}`);
    }
    case "test_input_required_result_list_roots": {
      const r = ask(ctx, { client_roots: inputRequired.listRoots() });
      return r.ask ?? text(`Roots: ${(r.got.client_roots.roots ?? []).map((root) => root.uri).join(", ")}`);
    }
    case "test_input_required_result_request_state": {
      const r = ask(ctx, { confirm: elicit("Please confirm", { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }) });
      return r.ask ?? text(`state-ok: confirmed=${content(r.got.confirm).ok}`);
    }
    case "test_input_required_result_multiple_inputs": {
      const r = ask(ctx, {
        user_name: elicit("What is your name?"),
        greeting: sample("Generate a greeting", 50),
        client_roots: inputRequired.listRoots(),
      });
      return (
        r.ask ??
        text(`name=${content(r.got.user_name).name}, greeting=${sampled(r.got.greeting)}, roots=${(r.got.client_roots.roots ?? []).length}`)
      );
    }
    case "test_input_required_result_multi_round": {
      const first = ask(ctx, { step1: elicit("Step 1: What is your name?") });
      if (first.ask) return first.ask;
      const second = ask(ctx, {
        step2: elicit("Step 2: What is your favorite color?", { type: "object", properties: { color: { type: "string" } }, required: ["color"] }),
      });
      return second.ask ?? text(`name=${content(second.got.step1).name}, color=${content(second.got.step2).color}`);
    }
    case "test_trigger_resource_update":
      // Not a scenario's: how a test sees a subscription's updates arrive.
      notifyAll((s) => s.sendResourceUpdated({ uri: "test://watched-resource" }), (h) => h.notify.resourceUpdated("test://watched-resource"));
      return text("resource updated");
    case "test_header_param":
      return text(`region=${args.region}`);
    case "json_schema_2020_12_tool":
      return text(`received ${JSON.stringify(args)}`);
    default:
      if (extraTool && request.params.name === extraTool.name) return text("added tool");
      throw new ProtocolError(-32602, `Unknown tool: ${request.params.name}`);
  }
}

function readResource(request) {
  const uri = request.params.uri;
  if (uri === "test://static-text") return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
  if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  if (uri === "test://watched-resource") return { contents: [{ uri, mimeType: "text/plain", text: "watched" }] };
  const templated = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (templated) {
    const id = templated[1];
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  }
  throw new ProtocolError(-32602, "Resource not found", { uri });
}

function getPrompt(request, ctx) {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_prompt":
      return { messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] };
    case "test_prompt_with_arguments":
      return { messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          { role: "user", content: { type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
          { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
        ],
      };
    case "test_prompt_with_image":
      return {
        messages: [
          { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
          { role: "user", content: { type: "text", text: "Please analyze the image above." } },
        ],
      };
    case "test_input_required_result_prompt": {
      const r = ask(ctx, {
        context: elicit("What context should the prompt use?", { type: "object", properties: { context: { type: "string" } }, required: ["context"] }),
      });
      return r.ask ?? { messages: [{ role: "user", content: { type: "text", text: `Context: ${content(r.got.context).context}` } }] };
    }
    default:
      throw new ProtocolError(-32602, `Unknown prompt: ${request.params.name}`);
  }
}

function factory() {
  const server = new Server(
    { name: "conformance-reference", version: "1.0.0" },
    { capabilities, instructions: "Reference server for the conformance suite's server scenarios." },
  );
  server.setRequestHandler("tools/list", async () => ({ tools: [...tools, triggerUpdate, ...(extraTool ? [extraTool] : [])] }));
  server.setRequestHandler("tools/call", callTool);
  server.setRequestHandler("resources/list", async () => ({ resources }));
  server.setRequestHandler("resources/templates/list", async () => ({
    resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template", description: "A templated resource", mimeType: "application/json" }],
  }));
  server.setRequestHandler("resources/read", readResource);
  server.setRequestHandler("resources/subscribe", async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler("resources/unsubscribe", async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler("prompts/list", async () => ({ prompts }));
  server.setRequestHandler("prompts/get", getPrompt);
  server.setRequestHandler("completion/complete", async (request) => {
    const value = request.params.argument?.value ?? "";
    const values = ["paris", "park", "party"].filter((v) => v.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  server.setRequestHandler("logging/setLevel", async () => ({}));
  return server;
}

// 2025-era sessions, by id: each its own server instance and transport.
const sessions = new Map();
const modern = createMcpHandler(factory, { legacy: "reject" });

function notifyAll(legacy, modernNotice) {
  for (const { server } of sessions.values()) legacy(server).catch(() => {});
  modernNotice(modern);
}

async function legacyFetch(request) {
  const id = request.headers.get("mcp-session-id");
  if (id) {
    const session = sessions.get(id);
    if (!session) return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }), { status: 404 });
    return session.transport.handleRequest(request);
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sid) => sessions.set(sid, { server, transport }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  const server = factory();
  await server.connect(transport);
  return transport.handleRequest(request);
}

const handler = {
  async fetch(request) {
    if (await isLegacyRequest(request.clone())) return legacyFetch(request);
    return modern.fetch(request);
  },
};

const listener = http.createServer(toNodeHandler(handler));
listener.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${listener.address().port}\n`);
});
