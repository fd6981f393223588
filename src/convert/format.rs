//! [`ToolFormat`]: which provider dialect a host asked for (definitions and results alike).

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
