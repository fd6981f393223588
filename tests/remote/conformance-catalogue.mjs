// What the official conformance suite's server scenarios call by name: the tools, resources and
// prompts, their data, shared by the stdio fixture (`conformance-fixture.mjs`, TypeScript SDK v1)
// and the both-eras HTTP reference server (`conformance-reference.mjs`, TypeScript SDK v2).

// A 1x1 red PNG and a tiny silent WAV.
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
export const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

export const empty = { type: "object", properties: {} };
export const text = (t) => ({ content: [{ type: "text", text: t }] });
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

export const tools = [
  { name: "test_simple_text", description: "Returns simple text", inputSchema: empty },
  { name: "test_image_content", description: "Returns an image", inputSchema: empty },
  { name: "test_audio_content", description: "Returns audio", inputSchema: empty },
  { name: "test_embedded_resource", description: "Returns an embedded resource", inputSchema: empty },
  { name: "test_multiple_content_types", description: "Returns text, image and resource", inputSchema: empty },
  { name: "test_tool_with_logging", description: "Logs three messages while it runs", inputSchema: empty },
  { name: "test_logging_tool", description: "Logs a message while it runs", inputSchema: empty },
  { name: "test_error_handling", description: "Always fails", inputSchema: empty },
  { name: "test_tool_with_progress", description: "Reports progress", inputSchema: empty },
  {
    name: "test_sampling",
    description: "Asks the client's model",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  },
  {
    name: "test_elicitation",
    description: "Asks the user",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
  },
  { name: "test_elicitation_sep1034_defaults", description: "Elicitation with defaults", inputSchema: empty },
  { name: "test_elicitation_sep1330_enums", description: "Elicitation with enums", inputSchema: empty },
  { name: "test_missing_capability", description: "Needs sampling", inputSchema: empty },
  { name: "test_streaming_elicitation", description: "Asks the user", inputSchema: empty },
  { name: "test_trigger_tool_change", description: "Adds a tool", inputSchema: empty },
  {
    name: "test_header_param",
    description: "Echoes a parameter that travels in an HTTP header too",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" } },
      required: ["region"],
    },
  },
  { name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features", inputSchema: JSON_SCHEMA_2020_12 },
  // Tools that ask their client while they run. A 2026-07-28 client of the sidecar gets each
  // question as an input_required result (the sidecar's keys and state, not a server's own).
  { name: "test_input_required_result_elicitation", description: "Asks a name", inputSchema: empty },
  { name: "test_input_required_result_sampling", description: "Asks the model", inputSchema: empty },
  { name: "test_input_required_result_list_roots", description: "Asks the roots", inputSchema: empty },
  { name: "test_input_required_result_request_state", description: "Asks a confirmation", inputSchema: empty },
  { name: "test_input_required_result_multiple_inputs", description: "Asks three things at once", inputSchema: empty },
  { name: "test_input_required_result_multi_round", description: "Asks twice in a row", inputSchema: empty },
  { name: "test_input_required_result_tampered_state", description: "Asks a name", inputSchema: empty },
  { name: "test_input_required_result_capabilities", description: "Asks the model", inputSchema: empty },
];

export const resources = [
  { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" },
  { uri: "test://static-binary", name: "static-binary", description: "A static binary resource", mimeType: "image/png" },
  { uri: "test://watched-resource", name: "watched-resource", description: "A resource to subscribe to", mimeType: "text/plain" },
];

export const prompts = [
  { name: "test_simple_prompt", description: "A simple prompt" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt with an embedded resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
  { name: "test_input_required_result_prompt", description: "Asks for its context before it is made" },
];
