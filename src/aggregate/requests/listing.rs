//! `tools/list`'s answers as JSON text, built once per catalog and rule set: each tool's MCP
//! definition serialised once when the catalog changes, a client's listing (the tools its rules
//! allow) joined into one text, and its answer spliced from that text — the whole listing kept
//! ready per era, a page (`--page-size`) cut from it as one slice — so that a warm `tools/list`
//! costs a copy, not a serialisation of every tool.
//!
//! Invalidated exactly when the catalog is: a server's tools changing, a server added or removed,
//! each gives the registry a new catalog, and a listing of another catalog is never served. Kept
//! per distinct rule set (`--access`), never one client's listing served to another; at most
//! [`limits::UPSTREAM_LISTINGS_MAX`] rule sets per catalog, the oldest dropped past it.
//!
//! The text is byte-for-byte what serialising the answer as a value gave (sorted keys, compact):
//! the answer's skeleton is serialised by `serde_json` with an empty `tools` array, and the tools'
//! own texts are spliced into it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

use super::pages::{self, Window};
use super::wire::WireError;
use crate::aggregate::access::Rules;
use crate::aggregate::session::era;
use crate::limits;
use crate::names::{ServerName, ToolName};
use crate::store::Catalog;

/// Which answer a listing is shaped as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `{nextCursor?, tools}`.
    Legacy,
    /// A 2026-07-28 result (`era::complete`): with its cache hints, or without them (a retry leg).
    Modern { cacheable: bool },
}

impl Shape {
    fn slot(self) -> Option<usize> {
        match self {
            Shape::Legacy => Some(0),
            Shape::Modern { cacheable: true } => Some(1),
            Shape::Modern { cacheable: false } => None,
        }
    }
}

/// The tools one rule set allows, as text.
pub(crate) struct Listed {
    /// Exposed names, in listing order (sorted).
    names: Vec<Box<str>>,
    /// The tools' definitions, comma-separated.
    joined: String,
    /// Where each tool's text ends in `joined`.
    ends: Vec<usize>,
    /// The one-page answer per shape ([`Shape::slot`]), built on first use.
    whole: [OnceLock<Arc<str>>; 2],
}

impl Listed {
    fn new<'a>(tools: impl Iterator<Item = (&'a str, &'a str)>) -> Listed {
        let (mut names, mut joined, mut ends) = (Vec::new(), String::new(), Vec::new());
        for (name, text) in tools {
            if !joined.is_empty() {
                joined.push(',');
            }
            joined.push_str(text);
            ends.push(joined.len());
            names.push(name.into());
        }
        Listed {
            names,
            joined,
            ends,
            whole: Default::default(),
        }
    }

    /// How many tools it lists.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// The answer to `tools/list` after `cursor`, in pages of `size` (`None`: one page).
    pub(crate) fn answer(
        &self,
        cursor: Option<&str>,
        size: Option<usize>,
        shape: Shape,
        server_info: &Value,
    ) -> Result<Arc<str>, WireError> {
        let window = pages::window(self.len(), |i| &self.names[i], cursor, size)?;
        let whole = window.start == 0 && window.next_cursor.is_none();
        match shape.slot().filter(|_| whole) {
            Some(slot) => {
                Ok(Arc::clone(self.whole[slot].get_or_init(|| {
                    self.splice(&window, shape, server_info).into()
                })))
            }
            None => Ok(self.splice(&window, shape, server_info).into()),
        }
    }

    /// The tools of `window`, one slice of `joined`.
    fn slice(&self, window: &Window) -> &str {
        if window.start >= window.end {
            return "";
        }
        let from = match window.start {
            0 => 0,
            // Past the comma after the tool before.
            start => self.ends[start - 1] + 1,
        };
        &self.joined[from..self.ends[window.end - 1]]
    }

    fn splice(&self, window: &Window, shape: Shape, server_info: &Value) -> String {
        let mut skeleton = json!({ "tools": [] });
        if let Some(next) = &window.next_cursor {
            skeleton["nextCursor"] = Value::String(next.clone());
        }
        if let Shape::Modern { cacheable } = shape {
            skeleton = era::complete(skeleton, server_info, cacheable);
        }
        let skeleton = skeleton.to_string();
        let tools = self.slice(window);
        // No other member's text can hold it: the keys before `tools` are fixed, and a cursor
        // is base64url.
        let Some(at) = skeleton.find(EMPTY_TOOLS) else {
            return skeleton;
        };
        let at = at + EMPTY_TOOLS.len() - 1;
        let mut out = String::with_capacity(skeleton.len() + tools.len());
        out.push_str(&skeleton[..at]);
        out.push_str(tools);
        out.push_str(&skeleton[at..]);
        out
    }
}

/// The empty `tools` member of a skeleton, where the tools' texts go (before its last byte).
const EMPTY_TOOLS: &str = "\"tools\":[]";

/// The listings of one catalog, per rule set.
#[derive(Default)]
pub(crate) struct Listings(Mutex<Generation>);

#[derive(Default)]
struct Generation {
    /// The catalog these listings are of.
    catalog: Option<Arc<Catalog>>,
    /// Each tool of the catalog: its exposed name, server, own name and definition as text.
    tools: Vec<ToolText>,
    /// Per rule set (`None`: every tool), with the order they were built in (oldest first).
    by_rules: HashMap<Option<Rules>, Arc<Listed>>,
    built: VecDeque<Option<Rules>>,
}

struct ToolText {
    name: String,
    server: ServerName,
    tool: ToolName,
    text: String,
}

impl Listings {
    /// The listing of `catalog` (whose tools as MCP definitions are `definitions`, in the same
    /// order) that `rules` allow; built when this catalog or these rules have none yet.
    pub(crate) fn get(
        &self,
        catalog: &Arc<Catalog>,
        definitions: &[Value],
        rules: Option<&Rules>,
    ) -> Arc<Listed> {
        let key = rules.filter(|r| !r.allows_everything()).cloned();
        let mut generation = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !generation
            .catalog
            .as_ref()
            .is_some_and(|seen| Arc::ptr_eq(seen, catalog))
        {
            *generation = Generation {
                catalog: Some(Arc::clone(catalog)),
                tools: catalog
                    .entries()
                    .zip(definitions)
                    .map(|(entry, definition)| ToolText {
                        name: entry.name.clone(),
                        server: entry.server.clone(),
                        tool: entry.tool.name.clone(),
                        text: definition.to_string(),
                    })
                    .collect(),
                ..Generation::default()
            };
        }
        if let Some(listed) = generation.by_rules.get(&key) {
            return Arc::clone(listed);
        }
        let listed = Arc::new(Listed::new(
            generation
                .tools
                .iter()
                .filter(|t| key.as_ref().is_none_or(|r| r.tool(&t.server, &t.tool)))
                .map(|t| (t.name.as_str(), t.text.as_str())),
        ));
        if generation.built.len() >= limits::UPSTREAM_LISTINGS_MAX {
            if let Some(oldest) = generation.built.pop_front() {
                generation.by_rules.remove(&oldest);
            }
        }
        generation.built.push_back(key.clone());
        generation.by_rules.insert(key, Arc::clone(&listed));
        listed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> Vec<Value> {
        names
            .iter()
            .map(|n| json!({"name": n, "description": format!("the \"{n}\" tool"), "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}))
            .collect()
    }

    fn listed(tools: &[Value]) -> Listed {
        let texts: Vec<(String, String)> = tools
            .iter()
            .map(|t| (t["name"].as_str().unwrap().to_owned(), t.to_string()))
            .collect();
        Listed::new(texts.iter().map(|(n, t)| (n.as_str(), t.as_str())))
    }

    /// What the answer was as a value, serialised: the text must be it byte for byte.
    fn as_value(
        tools: &[Value],
        cursor: Option<&str>,
        size: Option<usize>,
        shape: Shape,
    ) -> String {
        let info = json!({"name": "mcp-sidecar", "version": "1"});
        let page = pages::page(tools, cursor, size).unwrap();
        match shape {
            Shape::Legacy => page.to_string(),
            Shape::Modern { cacheable } => era::complete(page, &info, cacheable).to_string(),
        }
    }

    #[test]
    fn every_page_in_every_shape_is_the_value_it_replaced_byte_for_byte() {
        let info = json!({"name": "mcp-sidecar", "version": "1"});
        let shapes = [
            Shape::Legacy,
            Shape::Modern { cacheable: true },
            Shape::Modern { cacheable: false },
        ];
        for names in [
            vec![],
            vec!["a__x"],
            vec!["a__x", "a__y", "b__x", "b__y", "c__z"],
        ] {
            let all = tools(&names);
            let text = listed(&all);
            for shape in shapes {
                for size in [None, Some(1), Some(2), Some(5), Some(9)] {
                    let mut cursor: Option<String> = None;
                    loop {
                        let expected = as_value(&all, cursor.as_deref(), size, shape);
                        let got = text.answer(cursor.as_deref(), size, shape, &info).unwrap();
                        assert_eq!(&*got, expected, "{names:?} {shape:?} {size:?} {cursor:?}");
                        let parsed: Value = serde_json::from_str(&got).unwrap();
                        match parsed["nextCursor"].as_str() {
                            Some(next) => cursor = Some(next.to_owned()),
                            None => break,
                        }
                    }
                }
            }
        }
        let e = listed(&tools(&["a"]))
            .answer(Some("x"), None, Shape::Legacy, &info)
            .unwrap_err();
        assert_eq!(e.code, -32602);
    }
}
