//! The paginated lists of many servers as one: `resources/list`, `resources/templates/list` and
//! `prompts/list` for the host, with the sidecar's own cursor.
//!
//! Servers are visited in name order; only those that declared the capability are asked, and a
//! server's "method not found" is an empty list. Each server's `nextCursor` is followed, at most
//! [`limits::SURFACE_LIST_MAX_PAGES`] pages per server and listing. A host page ends at the first
//! downstream page boundary past [`limits::SURFACE_PAGE_ITEMS`] items or
//! [`limits::SURFACE_PAGE_BYTES`] bytes; its `nextCursor` is the sidecar's:
//! `base64url(JSON {list, only, server, cursor, pages})` — where to resume (the server by name, its
//! own cursor, the pages taken from it so far). The sidecar keeps nothing between pages, so a
//! cursor costs no memory and survives servers coming and going: a listing resumes at the first
//! server whose name is not before the one it names. A server that fails is reported in `errors`
//! and the listing goes on with the next.

use std::sync::Arc;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::acquire::{acquire, ready_session};
use super::roster::Roster;
use super::server::Server;
use super::session::{CallGuard, Session};
use crate::error::{Error, ErrorCode, Result};
use crate::limits;
use crate::mcp::{Capability, SurfaceList};

/// Where a listing resumes: the sidecar's `nextCursor`, decoded.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Cursor {
    /// The list's method: a cursor is only good for the list that gave it.
    list: String,
    /// The `server` param the listing was asked with.
    only: Option<String>,
    /// The server to resume at (the first one whose name is not before it).
    server: String,
    /// That server's own cursor, when resuming inside its list.
    cursor: Option<String>,
    /// Pages taken from that server so far.
    pages: usize,
}

/// One host page of `list`: `{<items>: [...], nextCursor?, errors?}`, each item with its
/// `server`. `only`: just that server (SERVER_NOT_FOUND when unknown; a stopped server with tools
/// listed is started, one that is down is SERVER_UNAVAILABLE); otherwise every ready server.
pub(super) async fn page(
    roster: &Arc<Roster>,
    list: SurfaceList,
    only: Option<&str>,
    cursor: Option<&str>,
) -> Result<Value> {
    let resume = cursor.map(|c| decode(c, list, only)).transpose()?;
    let servers = match only {
        Some(name) => vec![roster.find(name)?],
        None => roster.all(),
    };
    let mut out = Page::default();
    let start = resume.as_ref().map_or("", |r| r.server.as_str());
    let todo: Vec<&Arc<Server>> = servers
        .iter()
        .filter(|s| s.name.as_str() >= start)
        .collect();
    for (i, server) in todo.iter().enumerate() {
        let (mut downstream, mut pages) = match &resume {
            Some(r) if server.name == r.server => (r.cursor.clone(), r.pages),
            _ => (None, 0),
        };
        let Some((session, _busy)) = session_for(roster, server, only.is_some()).await? else {
            continue;
        };
        let capability = match list {
            SurfaceList::Prompts => Capability::Prompts,
            _ => Capability::Resources,
        };
        if !session.client.handshake().declares(capability) {
            continue;
        }
        loop {
            if pages >= limits::SURFACE_LIST_MAX_PAGES {
                out.failed(server, page_cap(server, list));
                break;
            }
            let timeout = server.spec.tool_timeout;
            let listed = session
                .client
                .list_page(list, downstream.as_deref(), timeout)
                .await;
            let page = match listed {
                Ok(page) => page,
                Err(e) => {
                    out.failed(server, e.with_stderr_tail(&session.stderr.text()));
                    break;
                }
            };
            pages += 1;
            out.bytes += page.bytes;
            out.items
                .extend(page.items.into_iter().map(|item| tagged(server, item)));
            downstream = page.next;
            if downstream.is_none() {
                break;
            }
            if out.is_full() {
                return Ok(out.finish(
                    list,
                    Some(cursor_at(
                        list,
                        only,
                        server.name.as_str(),
                        downstream,
                        pages,
                    )),
                ));
            }
        }
        if out.is_full() {
            let next = todo
                .get(i + 1)
                .map(|s| cursor_at(list, only, s.name.as_str(), None, 0));
            return Ok(out.finish(list, next));
        }
    }
    Ok(out.finish(list, None))
}

/// The session to list on: a ready one; for a listing of one server, a stopped one is started
/// (as a call would) and a down one is an error.
async fn session_for(
    roster: &Arc<Roster>,
    server: &Arc<Server>,
    explicit: bool,
) -> Result<Option<(Arc<Session>, CallGuard)>> {
    if explicit {
        return acquire(roster, server).await.map(Some);
    }
    Ok(ready_session(server))
}

/// What a listing gathered so far.
#[derive(Default)]
struct Page {
    items: Vec<Value>,
    bytes: usize,
    errors: Vec<Value>,
}

impl Page {
    fn is_full(&self) -> bool {
        self.items.len() >= limits::SURFACE_PAGE_ITEMS || self.bytes >= limits::SURFACE_PAGE_BYTES
    }

    fn failed(&mut self, server: &Server, error: Error) {
        let error = server
            .secrets
            .mask_error(error.with("server", server.name.as_str()));
        self.errors
            .push(json!({ "server": server.name, "error": error.to_rpc_error() }));
    }

    fn finish(self, list: SurfaceList, next: Option<Cursor>) -> Value {
        let mut out = Map::new();
        out.insert(list.items_key().into(), Value::Array(self.items));
        if let Some(next) = next {
            out.insert("nextCursor".into(), Value::String(encode(&next)));
        }
        if !self.errors.is_empty() {
            out.insert("errors".into(), Value::Array(self.errors));
        }
        Value::Object(out)
    }
}

/// An item of `server`'s list as the host gets it: its secret values masked, `server` added.
fn tagged(server: &Server, mut item: Value) -> Value {
    server.mask_result(&mut item);
    if let Value::Object(map) = &mut item {
        map.insert("server".into(), Value::from(server.name.as_str()));
    }
    item
}

fn cursor_at(
    list: SurfaceList,
    only: Option<&str>,
    server: &str,
    cursor: Option<String>,
    pages: usize,
) -> Cursor {
    Cursor {
        list: list.method().to_owned(),
        only: only.map(str::to_owned),
        server: server.to_owned(),
        cursor,
        pages,
    }
}

fn encode(cursor: &Cursor) -> String {
    let json = serde_json::to_vec(cursor).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
}

/// A cursor the host sent back: INVALID_PARAMS (`data.field: "cursor"`) unless this sidecar gave
/// it for this list and this `server` param.
fn decode(text: &str, list: SurfaceList, only: Option<&str>) -> Result<Cursor> {
    let invalid = |why: &str| {
        Error::new(
            ErrorCode::InvalidParams,
            format!("invalid cursor for {}: {why}", list.method()),
        )
        .with("field", "cursor")
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| invalid("not a cursor this sidecar gave"))?;
    let cursor: Cursor =
        serde_json::from_slice(&bytes).map_err(|_| invalid("not a cursor this sidecar gave"))?;
    if cursor.list != list.method() {
        return Err(invalid(&format!("it continues {}", cursor.list)));
    }
    if cursor.only.as_deref() != only {
        return Err(invalid("it continues a listing with another `server`"));
    }
    Ok(cursor)
}

fn page_cap(server: &Server, list: SurfaceList) -> Error {
    Error::new(
        ErrorCode::ProtocolError,
        format!(
            "server `{}`: {} did not end within {} pages",
            server.name,
            list.method(),
            limits::SURFACE_LIST_MAX_PAGES
        ),
    )
    .with("limit", limits::SURFACE_LIST_MAX_PAGES as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_is_good_only_for_its_list_and_server_param() {
        let c = cursor_at(SurfaceList::Resources, Some("a"), "a", Some("p2".into()), 3);
        let text = encode(&c);
        assert!(text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(
            decode(&text, SurfaceList::Resources, Some("a")).ok(),
            Some(c)
        );
        for (list, only) in [
            (SurfaceList::Prompts, Some("a")),
            (SurfaceList::Resources, None),
            (SurfaceList::Resources, Some("b")),
        ] {
            let e = decode(&text, list, only)
                .err()
                .map(|e| (e.code, e.details["field"].clone()));
            assert_eq!(
                e,
                Some((ErrorCode::InvalidParams, json!("cursor"))),
                "{list:?} {only:?}"
            );
        }
        assert!(decode("not base64!", SurfaceList::Resources, None).is_err());
        assert!(
            decode("e30", SurfaceList::Resources, None).is_err(),
            "{{}} is no cursor"
        );
    }
}
