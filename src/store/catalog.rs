//! The exposed tool set: every tool of every server that is ready — or dormant, i.e. stopped but
//! startable on the next call (lazy, idle-stopped, recycled) — under its provider-safe name, an exact
//! map from that name back to (server, tool), and what is made of the set: its listings per format
//! and options (`listing`, spliced from each tool's rendered `pieces`) and its search index.
//!
//! A catalog is immutable; the registry swaps in a new one whenever a server's tools come or go, so
//! every listing and index cached here is of exactly this set (a new set starts with none). A
//! tool whose name, server and definition are unchanged keeps its rendered pieces across the swap:
//! only what changed is converted again. An entry names its server, not a session: a call finds
//! the server's current session (starting it if dormant) when it runs.
//!
//! Memory: per tool, its pieces (`pieces`); per catalog, at most `VARIANTS × 3` whole listings
//! (each variant with the listing's `defer` absent, `true` or `false`), each about its answer's
//! size, and one search index. Listings filtered by server are rendered per request, not kept.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::entry::Entry;
use super::listing::{self, DeferRule, Rendered, ServerInfo, Source, Tool};
use super::pieces::{Pieces, Variant, VARIANTS};
use crate::convert::{defer, NameTemplate, Options, ToolFormat};
use crate::mcp::ToolDef;
use crate::names::ServerName;
use crate::search::{self, Hit, Index};

/// One server's part of a new catalog.
pub struct ServerTools {
    pub name: ServerName,
    pub tools: Arc<Vec<ToolDef>>,
    pub info: ServerInfo,
}

/// An entry and its renderings, shared by consecutive catalogs while it does not change.
struct Slot {
    entry: Entry,
    pieces: Pieces,
}

pub struct Catalog {
    /// Sorted by exposed name, which makes every listing byte-stable.
    entries: BTreeMap<String, Arc<Slot>>,
    servers: BTreeMap<ServerName, ServerInfo>,
    rule: DeferRule,
    /// The exposed name of the `search_tools` meta-tool (reserved in the name assignment).
    search_tools_name: String,
    /// Whole listings per (variant, the listing's `defer`: absent, `true`, `false`).
    listings: [OnceLock<Arc<Rendered>>; 3 * VARIANTS],
    index: OnceLock<Index>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::build(&NameTemplate::default(), DeferRule::default(), &[], None)
    }
}

/// Converted definitions of a whole catalog in one format, as values (for callers that want to
/// read them rather than send them).
#[derive(Clone)]
pub struct Listing {
    pub tools: Arc<Vec<Value>>,
    pub fingerprint: String,
}

/// What a listing asks for.
#[derive(Clone, Copy, Debug)]
pub struct ListingRequest<'a> {
    pub format: ToolFormat,
    pub options: Options,
    /// The listing's own deferral override (`tools/list {defer}`).
    pub defer: Option<bool>,
    /// Only the tools of these servers.
    pub servers: Option<&'a [String]>,
}

impl Catalog {
    /// Builds the catalog from each exposed server's tools. Names are assigned over the whole set so
    /// that collisions resolve the same way whatever order servers started in; the meta-tool's pair
    /// (`sidecar`, `search_tools`) takes part, so no tool of a server can take its name. Tools
    /// unchanged since `previous` keep their renderings.
    pub fn build(
        template: &NameTemplate,
        rule: DeferRule,
        servers: &[ServerTools],
        previous: Option<&Catalog>,
    ) -> Catalog {
        let search_tools_server = ServerName::from(defer::SEARCH_TOOLS_SERVER);
        let mut pairs: Vec<(&ServerName, &str)> = vec![(&search_tools_server, defer::SEARCH_TOOLS)];
        let mut tools: Vec<(&ServerName, &ToolDef)> = Vec::new();
        for server in servers {
            for tool in server.tools.iter() {
                pairs.push((&server.name, tool.name.as_str()));
                tools.push((&server.name, tool));
            }
        }
        let mut names = template.assign(&pairs).into_iter();
        let search_tools_name = names.next().unwrap_or_default();
        let entries = tools
            .into_iter()
            .zip(names)
            .map(|((server, tool), name)| {
                let kept = previous
                    .and_then(|p| p.entries.get(&name))
                    .filter(|s| s.entry.server == *server && s.entry.tool.raw == tool.raw)
                    .filter(|s| s.entry.tool.permission == tool.permission);
                let slot = match kept {
                    Some(slot) => Arc::clone(slot),
                    None => Arc::new(Slot {
                        entry: Entry {
                            name: name.clone(),
                            server: server.clone(),
                            tool: tool.clone(),
                        },
                        pieces: Pieces::default(),
                    }),
                };
                (name, slot)
            })
            .collect();
        Catalog {
            entries,
            servers: servers
                .iter()
                .map(|s| (s.name.clone(), s.info.clone()))
                .collect(),
            rule,
            search_tools_name,
            listings: Default::default(),
            index: OnceLock::new(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.get(name).map(|s| &s.entry)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, sorted by exposed name.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values().map(|slot| &slot.entry)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The entries of one server's tools.
    pub fn entries_of<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries
            .values()
            .filter(move |s| s.entry.server == server)
            .map(|s| &s.entry)
    }

    /// Exposed names of one server's tools.
    pub fn names_of<'a>(&'a self, server: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries
            .values()
            .filter(move |s| s.entry.server == server)
            .map(|s| s.entry.name.as_str())
    }

    /// The exposed name of the `search_tools` meta-tool.
    pub fn search_tools_name(&self) -> &str {
        &self.search_tools_name
    }

    /// The `tools/list` result (`{fingerprint, providerTools?, tokens, tools}`) as JSON text; the
    /// whole-catalog listings are rendered once per catalog, filtered ones per request.
    pub fn answer(&self, request: &ListingRequest<'_>) -> Arc<Rendered> {
        let variant = Variant::new(request.format, request.options);
        match request.servers {
            None => {
                let slot = 3 * variant.index()
                    + match request.defer {
                        None => 0,
                        Some(true) => 1,
                        Some(false) => 2,
                    };
                Arc::clone(self.listings[slot].get_or_init(|| {
                    Arc::new(listing::render(&self.source(None), variant, request.defer))
                }))
            }
            Some(only) => Arc::new(listing::render(
                &self.source(Some(only)),
                variant,
                request.defer,
            )),
        }
    }

    /// The fingerprint of the whole catalog's listing in `format` (the session's deferral rule).
    pub fn fingerprint(&self, format: ToolFormat, options: Options) -> String {
        self.answer(&ListingRequest {
            format,
            options,
            defer: None,
            servers: None,
        })
        .fingerprint
        .clone()
    }

    /// Tool entries as values, with the fingerprint (for readers such as `inspect`).
    pub fn listing(
        &self,
        format: ToolFormat,
        options: Options,
        servers: Option<&[String]>,
    ) -> Listing {
        let rendered = self.answer(&ListingRequest {
            format,
            options,
            defer: None,
            servers,
        });
        let mut parsed: Value = serde_json::from_str(&rendered.json).unwrap_or_default();
        let tools = match parsed.get_mut("tools").map(Value::take) {
            Some(Value::Array(tools)) => tools,
            _ => Vec::new(),
        };
        Listing {
            tools: Arc::new(tools),
            fingerprint: rendered.fingerprint.clone(),
        }
    }

    /// The best `limit` matches of `query` (exact names first), optionally among some servers'
    /// tools only, with how many matched in all; each match's entry (plain, never deferred) in
    /// `format` as JSON text.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        servers: Option<&[String]>,
        format: ToolFormat,
        options: Options,
    ) -> (Vec<Found<'_>>, usize) {
        let slots: Vec<&Arc<Slot>> = self.entries.values().collect();
        let index = self.index.get_or_init(|| build_index(&slots));
        let (hits, total) = index.search(query, limit, |doc| {
            servers.is_none_or(|only| only.iter().any(|o| slots[doc].entry.server == *o))
        });
        let variant = Variant::new(format, options);
        let found = hits
            .into_iter()
            .map(|Hit { doc, score, exact }| {
                let slot = slots[doc];
                let piece = slot.pieces.get(&slot.entry, variant, false);
                Found {
                    entry: &slot.entry,
                    json: &piece.entry,
                    definition: &piece.definition,
                    score,
                    exact,
                }
            })
            .collect();
        (found, total)
    }

    fn source<'a>(&'a self, only: Option<&'a [String]>) -> Source<'a> {
        Source {
            tools: self
                .entries
                .values()
                .filter(|s| only.is_none_or(|only| only.iter().any(|o| s.entry.server == *o)))
                .map(|s| Tool {
                    entry: &s.entry,
                    pieces: &s.pieces,
                })
                .collect(),
            servers: &self.servers,
            only,
            rule: self.rule,
            search_tools_name: &self.search_tools_name,
        }
    }
}

/// One search match.
pub struct Found<'a> {
    pub entry: &'a Entry,
    /// The tool entry, compact JSON.
    pub json: &'a str,
    /// Its definition, canonical JSON.
    pub definition: &'a str,
    pub score: f64,
    pub exact: bool,
}

/// The search index of the entries, in catalog order.
fn build_index(slots: &[&Arc<Slot>]) -> Index {
    let parameters: Vec<Vec<String>> = slots
        .iter()
        .map(|s| {
            s.entry
                .tool
                .raw
                .get("inputSchema")
                .and_then(|schema| schema.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        })
        .collect();
    let documents: Vec<search::Document<'_>> = slots
        .iter()
        .zip(&parameters)
        .map(|(s, parameters)| {
            let raw = &s.entry.tool.raw;
            search::Document {
                name: &s.entry.name,
                tool: s.entry.tool.name.as_str(),
                server: s.entry.server.as_str(),
                title: raw.get("title").and_then(Value::as_str),
                description: raw.get("description").and_then(Value::as_str),
                parameters,
            }
        })
        .collect();
    Index::build(&documents)
}
