//! Pure conversion from MCP shapes to provider-ready shapes.
//!
//! This module owns the [`ToolFormat`] enum (which provider dialect the host
//! asked for) and the conversion jobs, one per file or folder:
//!
//! - [`names`]: deterministic exposed tool names (`mcp__{server}__{tool}`).
//! - [`definitions`]: MCP tool object → provider tool definition + notes.
//! - [`schema`]: the schema transforms behind a definition, composed per format.
//! - [`arguments`]: undoing strict mode's nullable optionals before a call.
//! - [`results`]: MCP `CallToolResult` → provider tool-result payload.
//! - [`budget`]: a result over its size budget → head + tail + a marker.
//! - [`ansi`]: terminal escape codes stripped from text.
//! - [`fingerprint`](mod@fingerprint): a stable hash over a list of definitions.
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
pub mod definitions;
pub mod fingerprint;
pub mod names;
pub mod results;
pub mod schema;

pub use definitions::{definition, Converted, Options};
pub use fingerprint::fingerprint;
pub use names::{
    NameTemplate, DEFAULT_MAX_NAME_LENGTH, DEFAULT_NAME_TEMPLATE, MAX_MAX_NAME_LENGTH,
    MIN_MAX_NAME_LENGTH,
};
pub use results::{convert_result, CallOutput};

/// The provider dialect a host wants tool definitions and results in.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum ToolFormat {
    /// OpenAI Chat Completions (`{"type":"function","function":{...}}`).
    #[default]
    Openai,
    /// OpenAI Responses API (flat `{"type":"function","name":...}`).
    OpenaiResponses,
    /// Anthropic Messages API (`{"name","description","input_schema"}`).
    Anthropic,
    /// Gemini API function declarations (`{"name","description","parameters"}`, an OpenAPI-subset schema).
    Gemini,
    /// MCP itself: the server's tool object with only the name changed.
    Mcp,
}

impl ToolFormat {
    /// Every format, in declaration order.
    pub const ALL: [ToolFormat; 5] = [
        ToolFormat::Openai,
        ToolFormat::OpenaiResponses,
        ToolFormat::Anthropic,
        ToolFormat::Gemini,
        ToolFormat::Mcp,
    ];

    /// The wire spelling (same as serde's).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::Openai => "openai",
            ToolFormat::OpenaiResponses => "openai-responses",
            ToolFormat::Anthropic => "anthropic",
            ToolFormat::Gemini => "gemini",
            ToolFormat::Mcp => "mcp",
        }
    }
}

impl std::fmt::Display for ToolFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ToolFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToolFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let accepted: Vec<&str> = ToolFormat::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown tool format {s:?}; expected one of: {}",
                    accepted.join(", ")
                )
            })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
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
