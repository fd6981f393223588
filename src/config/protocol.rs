//! `protocolVersion`: which protocol era the sidecar speaks to one server. `"auto"` (the default)
//! finds out (see `mcp::negotiate`); `"legacy"` keeps to the `initialize` handshake and offers the
//! newest legacy revision; a revision (`"2026-07-28"`, `"2025-11-25"`, …) pins it: a modern one
//! means `server/discover` and `_meta` on every request with no fallback, a legacy one means
//! `initialize` offering exactly that revision.

use crate::era;

/// The era a server is spoken to in, as configured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Negotiated: the cached verdict, else a probe (see `mcp::negotiate`).
    #[default]
    Auto,
    /// The `initialize` handshake, offering the newest legacy revision.
    Legacy,
    /// Exactly this revision (a known one, modern or legacy).
    Pinned(String),
}

impl ProtocolChoice {
    /// Reads the config spelling; `None` for a value that is none of them.
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "auto" => Some(Self::Auto),
            "legacy" => Some(Self::Legacy),
            v if era::is_known(v) => Some(Self::Pinned(v.to_owned())),
            _ => None,
        }
    }

    /// The config spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Auto => "auto",
            Self::Legacy => "legacy",
            Self::Pinned(v) => v,
        }
    }

    /// What a wrong value is told.
    pub fn expected() -> String {
        let versions: Vec<&str> = era::MODERN_VERSIONS
            .iter()
            .chain(era::LEGACY_VERSIONS.iter())
            .copied()
            .collect();
        format!(
            "must be \"auto\", \"legacy\" or a protocol revision ({})",
            versions.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_round_trips() {
        for v in ["auto", "legacy", "2026-07-28", "2025-11-25", "2024-11-05"] {
            assert_eq!(
                ProtocolChoice::parse(v).map(|c| c.as_str().to_owned()),
                Some(v.to_owned())
            );
        }
        assert_eq!(ProtocolChoice::parse("2026-07-29"), None);
        assert_eq!(ProtocolChoice::parse("Auto"), None);
        assert!(ProtocolChoice::expected().contains("2026-07-28"));
    }
}
