//! The host's side of `pinTools`: `tools/accept`, which lets a held tool (listed as `withheld` by
//! `tools/list`, see `Server::withheld`) back into the tool set — exactly the definition the host
//! reviewed, by its hash, so a definition that changed again meanwhile is not accepted by mistake.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::roster::Roster;
use super::server::Server;
use crate::names::{ServerName, ToolName};

/// A definition the host accepts: tool `tool` of server `server` with hash `hash`.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Acceptance {
    pub server: ServerName,
    pub tool: ToolName,
    pub hash: String,
}

/// `tools/accept`: `{accepted: [...], rejected: [{server, tool, hash, reason}]}`. Each server whose
/// tools came back is rebuilt into the catalog once (the host hears `notifications/tools/changed`).
pub(super) fn accept(roster: &Roster, items: &[Acceptance]) -> Value {
    let mut accepted = Vec::new();
    let mut rejected = Vec::new();
    let mut touched: BTreeMap<ServerName, Arc<Server>> = BTreeMap::new();
    for item in items {
        let verdict = match roster.server(item.server.as_str()) {
            None => Err(format!("no server named `{}`", item.server)),
            Some(server) => {
                let outcome = {
                    let mut slot = server.slot();
                    let held = slot.held_tools();
                    match held.iter().find(|t| t.name == item.tool) {
                        Some(t) if t.hash == item.hash => {
                            slot.pins.accept(item.tool.as_str(), &item.hash);
                            Ok(())
                        }
                        Some(t) => Err(format!(
                            "the held definition of `{}` has hash {} now",
                            item.tool, t.hash
                        )),
                        None => Err(format!(
                            "server `{}` holds no tool `{}`",
                            item.server, item.tool
                        )),
                    }
                };
                if outcome.is_ok() {
                    touched.insert(server.name.clone(), server);
                }
                outcome
            }
        };
        let mut entry = json!({"server": item.server, "tool": item.tool, "hash": item.hash});
        match verdict {
            Ok(()) => accepted.push(entry),
            Err(reason) => {
                entry["reason"] = Value::String(reason);
                rejected.push(entry);
            }
        }
    }
    for server in touched.values() {
        roster.transitioned(server);
    }
    json!({ "accepted": accepted, "rejected": rejected })
}
