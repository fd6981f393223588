//! The `method` label: one of the methods the sidecar serves (either protocol), else `_other`, so
//! a client sending made-up method names cannot grow the series.

/// The label value that stands for every name past a bound.
pub(crate) const OTHER: &str = "_other";

/// Methods of MCP (both eras) and of the host protocol that get a series of their own.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "shutdown",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "tools/search",
    "tools/accept",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "results/read",
    "servers/list",
    "servers/status",
    "servers/stats",
    "servers/add",
    "servers/remove",
    "servers/restart",
    "servers/test",
    "servers/load",
    "servers/login",
    "servers/logout",
];

/// `method` as a label value.
pub(crate) fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|m| **m == method)
        .copied()
        .unwrap_or(OTHER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_share_one_label() {
        assert_eq!(method_label("tools/call"), "tools/call");
        assert_eq!(method_label("x/made-up-1"), OTHER);
    }
}
