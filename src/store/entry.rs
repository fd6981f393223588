//! [`Entry`]: one exposed tool — its exposed name, its server, and the tool as the server listed it.

use crate::mcp::ToolDef;

/// One exposed tool.
#[derive(Clone)]
pub struct Entry {
    pub name: String,
    pub server: String,
    pub tool: ToolDef,
}
