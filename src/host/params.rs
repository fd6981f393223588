//! Parameters of host protocol v1 requests. Unknown fields are rejected so that a typo in a host's
//! request is an INVALID_PARAMS error that names it, not a silently ignored option.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use crate::convert::ToolFormat;
use crate::error::{Error, Result};
use crate::jsonrpc::Params;
use crate::supervisor::LogLevel;

/// The host protocol version this build speaks.
pub(crate) const PROTOCOL_VERSION: u32 = 1;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct Initialize {
    pub protocol_version: Value,
    #[serde(default)]
    pub client_info: Option<Value>,
    #[serde(default)]
    pub tool_format: Option<ToolFormat>,
    #[serde(default)]
    pub name_template: Option<String>,
    #[serde(default)]
    pub max_name_length: Option<usize>,
    /// OpenAI strict mode by default for `tools/list` (openai and openai-responses formats).
    #[serde(default)]
    pub strict: Option<bool>,
    /// Every stdio server needs the host's approval (its launch digest) before it is spawned.
    #[serde(default)]
    pub require_trust: bool,
    /// What the host can answer when a server asks (sampling, elicitation, roots); declared to
    /// every server as the MCP client capabilities.
    #[serde(default)]
    pub capabilities: crate::ask::Capabilities,
    /// How long the sidecar waits for the host's answer to one of its requests.
    #[serde(default)]
    pub answer_timeout_ms: Option<u64>,
    /// Where OAuth tokens are kept: `file` (0600 files under the cache directory) or `memory`.
    #[serde(default)]
    pub token_storage: Option<TokenStorage>,
    /// Listings defer every server's tools (but those configured `defer: false`).
    #[serde(default)]
    pub defer: Option<bool>,
    /// Listings defer as `defer: true` once their tools are estimated above this many tokens.
    #[serde(default)]
    pub defer_above_tokens: Option<u64>,
    /// Servers whose config does not say offer their resources as two tools.
    #[serde(default)]
    pub resources_as_tools: bool,
    /// Servers whose config does not say hold a tool whose definition changed until the host
    /// accepts it.
    #[serde(default)]
    pub pin_tools: bool,
    /// Servers' log messages at or above this level reach the host (none when absent).
    #[serde(default)]
    pub server_logs: Option<LogLevel>,
    /// The `--config` files are kept in force: each edit reloads them.
    #[serde(default)]
    pub watch_config: bool,
}

/// `initialize`'s `tokenStorage`.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(super) enum TokenStorage {
    File,
    Memory,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct AddServer {
    pub name: String,
    pub config: Value,
    #[serde(default = "yes")]
    pub wait: bool,
    /// The launch digest the host approved (from a TRUST_REQUIRED error).
    #[serde(default)]
    pub trust: Option<String>,
}

/// `servers/test`: start a config, list its tools, stop it; nothing is registered.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct TestServer {
    pub config: Value,
    /// The name the server is started under (in its errors and tools policy); `test` by default.
    #[serde(default = "test_name")]
    pub name: String,
    /// The launch digest the host approved (from a TRUST_REQUIRED error).
    #[serde(default)]
    pub trust: Option<String>,
}

fn test_name() -> String {
    "test".to_owned()
}

/// `servers/load`: a file or directory (`path`), or a document (`json`, or `text` for TOML/YAML).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct LoadServers {
    #[serde(default)]
    pub path: Option<std::path::PathBuf>,
    #[serde(default)]
    pub json: Option<Value>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub dialect: Option<crate::config::Dialect>,
    /// `${input:ID}` values.
    #[serde(default)]
    pub inputs: std::collections::BTreeMap<String, String>,
    /// Approved launch digests by server name (when `requireTrust`).
    #[serde(default)]
    pub trust: std::collections::BTreeMap<String, String>,
    #[serde(default = "yes")]
    pub wait: bool,
    /// With `path`: keep the file in force, reloading it on every edit.
    #[serde(default)]
    pub watch: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ServerName {
    pub name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct LoginServer {
    pub name: String,
    /// Answer once the login (and the start after it) is done; `false`: as soon as the login
    /// waits for the browser.
    #[serde(default = "yes")]
    pub wait: bool,
}

/// `servers/stats`: every server's statistics, or those of the servers named.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ServerStats {
    #[serde(default)]
    pub servers: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ListTools {
    #[serde(default)]
    pub format: Option<ToolFormat>,
    #[serde(default)]
    pub servers: Option<Vec<String>>,
    #[serde(default)]
    pub strict: Option<bool>,
    /// This listing's deferral: `false` nothing, `true` every server but `defer: false` ones;
    /// absent: the session's rule.
    #[serde(default)]
    pub defer: Option<bool>,
}

/// `tools/search`: ranked search over the exposed tools.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct SearchTools {
    pub query: String,
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub servers: Option<Vec<String>>,
    #[serde(default)]
    pub format: Option<ToolFormat>,
    #[serde(default)]
    pub strict: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct CallTool {
    pub name: String,
    #[serde(default)]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// The format of `output` (the session's `toolFormat` when absent).
    #[serde(default)]
    pub format: Option<ToolFormat>,
    /// `notifications/progress` for this call (tagged with its id).
    #[serde(default)]
    pub progress: bool,
    /// Progress restarts the call's timeout (the server's `resetTimeoutOnProgress` when absent).
    #[serde(default)]
    pub reset_timeout_on_progress: Option<bool>,
    /// The call's hard bound (the server's `maxTotalTimeoutSeconds` when absent).
    #[serde(default)]
    pub max_total_timeout_ms: Option<u64>,
    /// The W3C trace context the call belongs to (also read from `_meta.traceparent`).
    #[serde(default)]
    pub traceparent: Option<String>,
    #[serde(default)]
    pub tracestate: Option<String>,
    /// MCP-style request metadata: its `traceparent` and `tracestate` are read.
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

/// `resources/list`, `resources/templates/list`, `prompts/list`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ListSurface {
    /// Only this server; every ready server when absent.
    #[serde(default)]
    pub server: Option<String>,
    /// The `nextCursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ReadResource {
    pub server: String,
    pub uri: String,
    /// The format of `output` (the session's `toolFormat` when absent).
    #[serde(default)]
    pub format: Option<ToolFormat>,
}

/// `resources/subscribe`, `resources/unsubscribe`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct Subscription {
    pub server: String,
    pub uri: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct GetPrompt {
    pub server: String,
    pub name: String,
    /// The prompt's arguments: strings, as MCP has them.
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, String>,
    /// The format of `output` (the session's `toolFormat` when absent).
    #[serde(default)]
    pub format: Option<ToolFormat>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct Complete {
    pub server: String,
    #[serde(rename = "ref")]
    pub reference: CompletionRef,
    pub argument: CompletionArgument,
    #[serde(default)]
    pub context: Option<CompletionContext>,
}

/// What is completed: a prompt's argument or a resource template's variable.
#[derive(Deserialize, serde::Serialize)]
#[serde(tag = "type")]
pub(super) enum CompletionRef {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CompletionArgument {
    pub name: String,
    pub value: String,
}

#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CompletionContext {
    /// Arguments already given (they may narrow the values).
    #[serde(default)]
    pub arguments: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct SetLogLevel {
    /// Only this server; the session's level (every server) when absent.
    #[serde(default)]
    pub server: Option<String>,
    pub level: LogLevel,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct AcceptTools {
    pub tools: Vec<crate::supervisor::Acceptance>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct ReadResult {
    pub handle: String,
    #[serde(default)]
    pub offset: usize,
    #[serde(default)]
    pub length: Option<usize>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct Empty {}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Cancelled {
    pub request_id: crate::jsonrpc::RequestId,
    #[serde(default)]
    pub reason: Option<String>,
}

/// Parses `params` (absent means `{}`) into `T`, naming the method in the error. Read from their
/// text: a call's params never become a tree of values only to be taken apart again.
pub(super) fn parse<T: DeserializeOwned>(method: &str, params: Option<Params>) -> Result<T> {
    let text = match &params {
        None => "{}",
        Some(params) if params.is_object() => params.text(),
        Some(_) => {
            return Err(Error::invalid_params(format!(
                "params of `{method}` must be an object"
            )))
        }
    };
    serde_json::from_str(text).map_err(|e| {
        Error::invalid_params(format!(
            "invalid params for `{method}`: {}",
            without_position(&e)
        ))
    })
}

/// The error's message without the position serde adds to an error read from text: the params are
/// one member of the host's line, so a column within them would point nowhere the host can see.
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    match message.strip_suffix(&position) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::Incoming;

    /// The params of a request line, as the host's reader keeps them.
    fn params_of(line: &str) -> Option<Params> {
        match Incoming::<Params>::parse(line.as_bytes()) {
            Ok(Ok(Incoming::Request { params, .. })) => params,
            _ => panic!("not a request: {line}"),
        }
    }

    #[test]
    fn params_read_from_text_name_the_method_and_not_a_column() {
        let params = params_of(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestId":7}}"#);
        let cancelled: Cancelled = parse("m", params).unwrap();
        assert_eq!(cancelled.request_id, crate::jsonrpc::RequestId::Number(7));

        let absent: Empty = parse("ping", None).unwrap();
        let Empty {} = absent;

        let typo = params_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1}}"#);
        let e = parse::<Empty>("ping", typo).err().unwrap();
        assert_eq!(
            e.message,
            "invalid params for `ping`: unknown field `x`, there are no fields"
        );

        // Valid JSON a tree could not hold: this request's own INVALID_PARAMS, not the line's.
        let huge =
            params_of(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestId":1e400}}"#);
        let e = parse::<Cancelled>("m", huge).err().unwrap();
        assert_eq!(e.message, "invalid params for `m`: number out of range");

        let array = params_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#);
        let e = parse::<Empty>("ping", array).err().unwrap();
        assert_eq!(e.message, "params of `ping` must be an object");
    }
}
