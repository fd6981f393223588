//! The exposed tool set: every tool of every server that is ready — or dormant, i.e. stopped but
//! startable on the next call (lazy, idle-stopped, recycled) — under its provider-safe name, an exact
//! map from that name back to (server, tool), and the converted definitions per format.
//! Definitions are converted per format and options, each with its `conversionNotes` (always
//! present, `[]` when the conversion changed nothing).
//!
//! A catalog is immutable; the registry swaps in a new one whenever a server's tools come or go. An
//! entry names its server, not a session: a call finds the server's current session (starting it if
//! dormant) when it runs.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};

use crate::convert::{self, NameTemplate, Options, ToolFormat};
use crate::mcp::ToolDef;

/// One exposed tool.
#[derive(Clone)]
pub struct Entry {
    pub name: String,
    pub server: String,
    pub tool: ToolDef,
}

#[derive(Default)]
pub struct Catalog {
    /// Sorted by exposed name, which makes every listing byte-stable.
    entries: BTreeMap<String, Entry>,
    /// One cached listing per (format, strict).
    definitions: [OnceLock<Listing>; 2 * ToolFormat::ALL.len()],
}

/// Converted definitions of a whole catalog in one format.
#[derive(Clone)]
pub struct Listing {
    pub tools: Arc<Vec<Value>>,
    pub fingerprint: String,
}

impl Catalog {
    /// Builds the catalog from each exposed server's tools. Names are assigned over the whole set so
    /// that collisions resolve the same way whatever order servers started in.
    pub fn build(template: &NameTemplate, servers: &[(String, Arc<Vec<ToolDef>>)]) -> Catalog {
        let mut pairs: Vec<(&str, &str, &ToolDef)> = Vec::new();
        for (server, tools) in servers {
            for tool in tools.iter() {
                pairs.push((server.as_str(), tool.name.as_str(), tool));
            }
        }
        let names = template.assign(&pairs.iter().map(|(s, t, _)| (*s, *t)).collect::<Vec<_>>());
        let entries = pairs
            .into_iter()
            .zip(names)
            .map(|((server, _, tool), name)| {
                let entry = Entry {
                    name: name.clone(),
                    server: server.to_owned(),
                    tool: tool.clone(),
                };
                (name, entry)
            })
            .collect();
        Catalog {
            entries,
            definitions: Default::default(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.get(name)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, sorted by exposed name.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Exposed names of one server's tools.
    pub fn names_of<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .values()
            .filter(move |e| e.server == server)
            .map(|e| e.name.as_str())
    }

    /// Tool entries (`{name, server, tool, title?, annotations?, readOnly, definition, conversionNotes}`)
    /// in `format`, optionally only of some servers, with the fingerprint of exactly those definitions
    /// (notes are not part of it: a fingerprint changes only when a definition does).
    pub fn listing(
        &self,
        format: ToolFormat,
        options: Options,
        servers: Option<&[String]>,
    ) -> Listing {
        match servers {
            None => self.definitions[cache_index(format, options)]
                .get_or_init(|| self.render(format, options, None))
                .clone(),
            Some(only) => self.render(format, options, Some(only)),
        }
    }

    fn render(&self, format: ToolFormat, options: Options, only: Option<&[String]>) -> Listing {
        let mut tools = Vec::new();
        let mut definitions = Vec::new();
        for entry in self.entries.values() {
            if only.is_some_and(|only| !only.contains(&entry.server)) {
                continue;
            }
            let convert::Converted { definition, notes } =
                convert::definition(format, options, &entry.name, &entry.tool.raw);
            let raw = &entry.tool.raw;
            let annotations = raw.get("annotations").filter(|a| a.is_object());
            let mut item = json!({
                "name": entry.name,
                "server": entry.server,
                "tool": entry.tool.name,
                "readOnly": annotations.and_then(|a| a.get("readOnlyHint")).and_then(Value::as_bool).unwrap_or(false),
                "definition": definition,
                "conversionNotes": notes,
            });
            if let Some(title) = raw.get("title").and_then(Value::as_str) {
                item["title"] = Value::from(title);
            }
            if let Some(a) = annotations {
                item["annotations"] = a.clone();
            }
            if let Some(p) = &entry.tool.permission {
                item["permission"] = Value::from(p.as_str());
            }
            definitions.push(definition);
            tools.push(item);
        }
        Listing {
            fingerprint: convert::fingerprint(&definitions),
            tools: Arc::new(tools),
        }
    }
}

fn cache_index(format: ToolFormat, options: Options) -> usize {
    2 * ToolFormat::ALL
        .iter()
        .position(|f| *f == format)
        .unwrap_or(0)
        + usize::from(options.strict)
}
