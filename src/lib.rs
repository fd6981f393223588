//! mcp-sidecar
