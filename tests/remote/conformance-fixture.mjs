// A stdio MCP server, written with the official TypeScript SDK (v1, its low-level `Server`), that
// offers every tool, resource and prompt the server scenarios of the official conformance suite
// call by name. `mcp-sidecar mcp --http` aggregates it (with the name template `{tool}`, so the
// names stay the suite's) and the suite runs against the sidecar, not against this file.
//
// Behaviour follows each scenario's own description in
// node_modules/@modelcontextprotocol/conformance/dist/index.js.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

import { PNG, WAV, empty, text, sleep, tools, resources, prompts } from "./conformance-catalogue.mjs";

const askName = (message) =>
  server.elicitInput({
    message,
    requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  });
const askModel = (text, maxTokens = 100) =>
  server.createMessage({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens });

const server = new Server(
  { name: "conformance-fixture", version: "1.0.0" },
  {
    capabilities: {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    },
    instructions: "Fixture for the conformance suite's server scenarios.",
  },
);

let extraTool = null;

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: extraTool ? [...tools, extraTool] : tools,
}));

async function log(extra, level, data) {
  await server.sendLoggingMessage({ level, logger: "conformance-fixture", data }, extra.sessionId);
}

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
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
          {
            type: "resource",
            resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
          },
        ],
      };
    case "test_multiple_content_types":
      return {
        content: [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "resource",
            resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
          },
        ],
      };
    case "test_tool_with_logging":
      await log(extra, "info", "Tool execution started");
      await sleep(50);
      await log(extra, "info", "Tool processing data");
      await sleep(50);
      await log(extra, "info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    case "test_logging_tool":
      await log(extra, "info", "test_logging_tool ran");
      return text("logged");
    case "test_error_handling":
      return { isError: true, content: [{ type: "text", text: "This tool intentionally returns an error for testing" }] };
    case "test_tool_with_progress": {
      const token = request.params._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined) {
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 100 } });
        }
        if (progress < 100) await sleep(50);
      }
      return text("Tool with progress executed successfully");
    }
    case "test_sampling":
    case "test_missing_capability": {
      const prompt = args.prompt ?? "Say hello";
      const result = await server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
      });
      const answer = result.content?.type === "text" ? result.content.text : JSON.stringify(result.content);
      return text(`LLM response: ${answer}`);
    }
    case "test_elicitation":
    case "test_streaming_elicitation": {
      const result = await server.elicitInput({
        message: args.message ?? "Please provide your details",
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
      });
      return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case "test_elicitation_sep1034_defaults": {
      const result = await server.elicitInput({
        message: "Please review the defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", default: "John Doe" },
            age: { type: "integer", default: 30 },
            score: { type: "number", default: 95.5 },
            status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", default: true },
          },
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case "test_elicitation_sep1330_enums": {
      const result = await server.elicitInput({
        message: "Please choose",
        requestedSchema: {
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
        },
      });
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    }
    case "test_trigger_tool_change":
      extraTool = { name: `test_added_${Date.now()}`, description: "Added at runtime", inputSchema: empty };
      await server.sendToolListChanged();
      return text("tool list changed");
    case "test_input_required_result_elicitation":
    case "test_input_required_result_tampered_state": {
      const result = await askName("What is your name?");
      return text(`Hello, ${result.content?.name ?? "stranger"}!`);
    }
    case "test_input_required_result_sampling":
    case "test_input_required_result_capabilities": {
      const result = await askModel("What is the capital of France?");
      return text(`The model said: ${result.content?.text ?? JSON.stringify(result.content)}`);
    }
    case "test_input_required_result_list_roots": {
      const result = await server.listRoots();
      return text(`Roots: ${result.roots.map((r) => r.uri).join(", ")}`);
    }
    case "test_input_required_result_request_state": {
      const result = await server.elicitInput({
        message: "Please confirm",
        requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
      });
      // The sidecar kept and checked the request's state; the answer reaching here proves it.
      return text(`state-ok: confirmed=${result.content?.ok}`);
    }
    case "test_input_required_result_multiple_inputs": {
      const [name, greeting, roots] = await Promise.all([
        askName("What is your name?"),
        askModel("Generate a greeting", 50),
        server.listRoots(),
      ]);
      return text(`name=${name.content?.name}, greeting=${greeting.content?.text}, roots=${roots.roots.length}`);
    }
    case "test_input_required_result_multi_round": {
      const first = await askName("Step 1: What is your name?");
      const second = await server.elicitInput({
        message: "Step 2: What is your favorite color?",
        requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
      });
      return text(`name=${first.content?.name}, color=${second.content?.color}`);
    }
    case "test_header_param":
      return text(`region=${args.region}`);
    case "json_schema_2020_12_tool":
      return text(`received ${JSON.stringify(args)}`);
    default:
      if (extraTool && request.params.name === extraTool.name) return text("added tool");
      throw new McpError(-32602, `Unknown tool: ${request.params.name}`);
  }
});

server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources }));
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [
    { uriTemplate: "test://template/{id}/data", name: "template", description: "A templated resource", mimeType: "application/json" },
  ],
}));
server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const uri = request.params.uri;
  if (uri === "test://static-text") {
    return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
  }
  if (uri === "test://static-binary") {
    return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  }
  if (uri === "test://watched-resource") {
    return { contents: [{ uri, mimeType: "text/plain", text: "watched" }] };
  }
  const templated = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (templated) {
    const id = templated[1];
    return {
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
    };
  }
  throw new McpError(-32602, "Resource not found", { uri });
});
server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));

server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts }));
server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "test_simple_prompt":
      return { messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] };
    case "test_prompt_with_arguments":
      return {
        messages: [
          { role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } },
        ],
      };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          {
            role: "user",
            content: { type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } },
          },
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
      // Asked while prompts/get runs: the sidecar must bring the question to the client whose
      // request it is (a 2026-07-28 client through input_required).
      const result = await server.elicitInput({
        message: "What context should the prompt use?",
        requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
      });
      return { messages: [{ role: "user", content: { type: "text", text: `Context: ${result.content?.context}` } }] };
    }
    default:
      throw new McpError(-32602, `Unknown prompt: ${request.params.name}`);
  }
});

server.setRequestHandler(CompleteRequestSchema, async (request) => {
  const value = request.params.argument?.value ?? "";
  const values = ["paris", "park", "party"].filter((v) => v.startsWith(value));
  return { completion: { values, total: values.length, hasMore: false } };
});

server.setRequestHandler(SetLevelRequestSchema, async () => ({}));

await server.connect(new StdioServerTransport());
