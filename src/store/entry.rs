//! [`Entry`]: one exposed tool — its exposed name, its server, and the tool as the server listed it.

use crate::mcp::ToolDef;
use crate::names::ServerName;

/// One exposed tool.
#[derive(Clone)]
pub struct Entry {
    pub name: String,
    pub server: ServerName,
    pub tool: ToolDef,
}
