//! Pure conversion from MCP shapes to provider-ready shapes.
//!
//! The conversion jobs, one per file or folder ([`ToolFormat`], in `format`, names the provider
//! dialect a host asked for):
//!
//! - [`names`]: deterministic exposed tool names (`mcp__{server}__{tool}`), `{server}` being the
//!   server's [`server_prefix`](mod@server_prefix) (its name, or a slug of it with a hash).
//! - [`definitions`]: MCP tool object → provider tool definition + notes.
//! - [`mcp_tool`](mod@mcp_tool): MCP tool object → the MCP tool the aggregate serves its clients, its
//!   input schema cleaned for a provider.
//! - [`schema`]: the schema transforms behind a definition, composed per format.
//! - [`arguments`]: undoing strict mode's nullable optionals before a call.
//! - [`results`]: MCP `CallToolResult` → provider tool-result payload.
//! - [`resources`]: resource contents and listings → a `CallToolResult` (then as above).
//! - [`prompts`]: prompt messages → provider messages.
//! - [`budget`]: a result over its size budget → head + tail + a marker.
//! - [`ansi`]: terminal escape codes stripped from text.
//! - [`fingerprint`](mod@fingerprint): a stable hash over a list of definitions.
//! - [`tokens`]: what a definition costs in a model's context (an estimate).
//! - [`defer`]: the shapes of deferred tools per provider (`defer_loading`, namespaces, tool search).
//!
//! Everything here is a pure function from `serde_json::Value` to
//! `serde_json::Value` (or plain Rust data). Nothing here touches the rest of
//! the crate, does I/O, or panics on any input: peer-controlled JSON is only
//! ever read through `get`/`as_*` accessors.
//!
//! Key order: the crate uses serde_json *without* the `preserve_order`
//! feature, so `serde_json::Map` is a `BTreeMap` and serialising a `Value`
//! emits object keys sorted. The tests in this module pin wire JSON as strings
//! and rely on that. (The fingerprint sorts keys itself, so it stays stable
//! even if some dependency ever switches `preserve_order` on.)

pub mod ansi;
pub mod arguments;
pub mod budget;
pub mod defer;
pub mod definitions;
pub mod fingerprint;
pub mod format;
pub mod mcp_tool;
pub mod names;
pub mod prompts;
pub mod resources;
pub mod results;
pub mod schema;
pub mod server_prefix;
pub mod tokens;

pub use definitions::{definition, Converted, Options};
pub use fingerprint::{fingerprint, fingerprint_canonical};
pub use format::ToolFormat;
pub use mcp_tool::mcp_tool;
pub use names::{
    NameTemplate, DEFAULT_MAX_NAME_LENGTH, DEFAULT_NAME_TEMPLATE, MAX_MAX_NAME_LENGTH,
    MIN_MAX_NAME_LENGTH,
};
pub use results::{convert_owned, convert_result, CallOutput};
pub use server_prefix::server_prefix;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_as_str_and_from_str() {
        for f in ToolFormat::ALL {
            let wire = serde_json::to_string(&f).unwrap();
            assert_eq!(wire, format!("\"{}\"", f.as_str()));
            assert_eq!(f.as_str().parse::<ToolFormat>(), Ok(f));
            assert_eq!(serde_json::from_str::<ToolFormat>(&wire).unwrap(), f);
            assert_eq!(f.to_string(), f.as_str());
        }
        assert_eq!(
            serde_json::to_string(&ToolFormat::ALL).unwrap(),
            r#"["openai","openai-responses","anthropic","gemini","mcp"]"#
        );
    }

    #[test]
    fn default_is_openai() {
        assert_eq!(ToolFormat::default(), ToolFormat::Openai);
    }

    #[test]
    fn from_str_error_names_accepted_values() {
        assert_eq!(
            "OpenAI".parse::<ToolFormat>(),
            Err(
                r#"unknown tool format "OpenAI"; expected one of: openai, openai-responses, anthropic, gemini, mcp"#
                    .to_string()
            )
        );
        assert!(serde_json::from_str::<ToolFormat>(r#""openai_responses""#).is_err());
    }
}
