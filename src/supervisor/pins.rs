//! Tool definitions that change under the same name (the "rug pull" on MCP hosts): one server's
//! ledger of the definitions it has listed, by hash ([`ToolDef::hash`]), across its restarts.
//!
//! - Every listing is compared with the last one of each name: a different hash is a *change*,
//!   reported once in the next `notifications/tools/changed` (`changed`).
//! - Under `pinTools`, the first definition seen of a name is accepted (trust on first use); a
//!   later one with another hash is *held*: the tool stays out of the tool set, is listed as
//!   withheld for the host to inspect, and comes back once the host accepts exactly that hash
//!   (`tools/accept`). A held tool is reported once per new hash (`withheld`).
//!
//! The ledger lives in the server's slot, so it survives restarts within the session; it is not
//! persisted (a new session trusts on first use again).

use std::collections::{BTreeSet, HashMap};

use crate::limits;
use crate::mcp::ToolDef;
use crate::names::ToolName;

#[derive(Debug, Default)]
pub(super) struct Pins {
    pinning: bool,
    /// The hash each name was last listed with.
    seen: HashMap<ToolName, String>,
    /// The accepted hash of each name (pinning only).
    accepted: HashMap<ToolName, String>,
    /// The hash each held name was last reported with, so it is reported once.
    reported: HashMap<ToolName, String>,
    /// News for the next catalog rebuild: names whose definition changed…
    changed: BTreeSet<ToolName>,
    /// …and `(name, hash)` of tools newly held.
    held: Vec<(ToolName, String)>,
}

/// What changed since the last rebuild took the news.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct News {
    pub changed: BTreeSet<ToolName>,
    pub held: Vec<(ToolName, String)>,
}

impl Pins {
    pub(super) fn new(pinning: bool) -> Self {
        Self {
            pinning,
            ..Self::default()
        }
    }

    /// Records a listing of the server's tools (from a session or the schema cache).
    pub(super) fn observe(&mut self, tools: &[ToolDef]) {
        if self.seen.len() + tools.len() > limits::PINNED_TOOL_NAMES_MAX {
            // Only names that come back can report a change; forget the rest (the accepted
            // hashes stay: see `accept_first_sight`).
            let listed: BTreeSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
            self.seen.retain(|name, _| listed.contains(name.as_str()));
        }
        for tool in tools {
            if let Some(before) = self.seen.insert(tool.name.clone(), tool.hash.clone()) {
                if before != tool.hash {
                    self.changed.insert(tool.name.clone());
                }
            }
            if !self.pinning {
                continue;
            }
            self.accept_first_sight(tool);
            if self.holds(tool) && self.reported.get(&tool.name) != Some(&tool.hash) {
                self.reported.insert(tool.name.clone(), tool.hash.clone());
                self.held.push((tool.name.clone(), tool.hash.clone()));
            }
        }
    }

    /// Trust on first use, within [`limits::PINNED_TOOL_NAMES_MAX`] names: a server churning
    /// names past it gets its new names held rather than older accepted hashes forgotten.
    fn accept_first_sight(&mut self, tool: &ToolDef) {
        if self.accepted.contains_key(&tool.name)
            || self.accepted.len() >= limits::PINNED_TOOL_NAMES_MAX
        {
            return;
        }
        self.accepted.insert(tool.name.clone(), tool.hash.clone());
    }

    /// Whether `tool` is kept out of the tool set: pinning, and not its accepted definition.
    pub(super) fn holds(&self, tool: &ToolDef) -> bool {
        self.pinning && self.accepted.get(&tool.name) != Some(&tool.hash)
    }

    /// The hash the host accepted for `name` (first sight or `tools/accept`).
    pub(super) fn accepted(&self, name: &str) -> Option<&str> {
        self.accepted.get(name).map(String::as_str)
    }

    /// The host accepts definition `hash` of `name`.
    pub(super) fn accept(&mut self, name: &str, hash: &str) {
        self.accepted.insert(ToolName::from(name), hash.to_owned());
        self.reported.remove(name);
    }

    /// Takes what changed since the last call.
    pub(super) fn take_news(&mut self) -> News {
        News {
            changed: std::mem::take(&mut self.changed),
            held: std::mem::take(&mut self.held),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A tool named `name`; the schema is compiled once for all of them.
    fn tool(name: &str, description: &str) -> ToolDef {
        static BASE: std::sync::OnceLock<ToolDef> = std::sync::OnceLock::new();
        let base = BASE.get_or_init(|| {
            let raw = json!({"name": "base", "inputSchema": {"type": "object"}});
            crate::mcp::validate_tools("s", vec![raw])
                .unwrap()
                .remove(0)
        });
        let raw =
            json!({"name": name, "description": description, "inputSchema": {"type": "object"}});
        ToolDef {
            name: ToolName::from(name),
            hash: crate::mcp::tools::definition_hash(&raw),
            raw,
            ..base.clone()
        }
    }

    #[test]
    fn a_changed_definition_is_reported_once() {
        let mut pins = Pins::new(false);
        pins.observe(&[tool("a", "one"), tool("b", "one")]);
        assert_eq!(
            pins.take_news(),
            News::default(),
            "first sight is no change"
        );
        pins.observe(&[tool("a", "two"), tool("b", "one")]);
        let news = pins.take_news();
        assert_eq!(news.changed, BTreeSet::from([ToolName::from("a")]));
        assert!(news.held.is_empty() && !pins.holds(&tool("a", "two")));
        pins.observe(&[tool("a", "two")]);
        assert_eq!(pins.take_news(), News::default());
    }

    #[test]
    fn pinning_holds_a_changed_tool_until_its_hash_is_accepted() {
        let mut pins = Pins::new(true);
        let (v1, v2, v3) = (tool("a", "one"), tool("a", "two"), tool("a", "three"));
        pins.observe(std::slice::from_ref(&v1));
        assert!(!pins.holds(&v1));
        pins.observe(std::slice::from_ref(&v2));
        assert!(pins.holds(&v2));
        assert_eq!(
            pins.take_news().held,
            vec![(ToolName::from("a"), v2.hash.clone())]
        );
        pins.observe(std::slice::from_ref(&v2));
        assert!(pins.take_news().held.is_empty(), "reported once per hash");
        pins.observe(std::slice::from_ref(&v3));
        assert_eq!(
            pins.take_news().held,
            vec![(ToolName::from("a"), v3.hash.clone())]
        );
        assert_eq!(pins.accepted("a"), Some(v1.hash.as_str()));
        pins.accept("a", &v3.hash);
        assert!(
            !pins.holds(&v3) && pins.holds(&v1),
            "going back is a change too"
        );
    }

    #[test]
    fn past_the_name_bound_new_names_are_held_under_pinning() {
        let mut pins = Pins::new(true);
        let many: Vec<ToolDef> = (0..limits::PINNED_TOOL_NAMES_MAX)
            .map(|i| tool(&format!("t{i}"), "d"))
            .collect();
        pins.observe(&many);
        let late = tool("late", "d");
        pins.observe(std::slice::from_ref(&late));
        assert!(pins.holds(&late));
        assert!(!pins.holds(&many[0]), "earlier acceptances kept");
    }
}
