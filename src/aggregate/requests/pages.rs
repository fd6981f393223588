//! `tools/list` in pages (`--page-size N`): a page is at most N tools in the listing's byte-stable
//! order (by exposed name), and its `nextCursor` is opaque to the client — the last name served,
//! base64url-encoded. A page after a cursor starts at the first name past it, so a tool set that
//! changes between pages neither repeats nor skips a tool that stayed. Without a page size the
//! list is one page and any cursor is refused.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::json;
#[cfg(test)]
use serde_json::Value;

use super::wire::WireError;

/// What marks a cursor of this build, inside the encoding.
const CURSOR_PREFIX: &str = "after:";

/// One page of `tools` (each an MCP tool object, sorted by `name`) after `cursor`: `{tools,
/// nextCursor?}` — the answer as a value, which the listing's text must equal (`listing`'s tests).
#[cfg(test)]
pub(crate) fn page(
    tools: &[Value],
    cursor: Option<&str>,
    size: Option<usize>,
) -> Result<Value, WireError> {
    let window = window(tools.len(), |i| name(&tools[i]), cursor, size)?;
    let mut result = json!({ "tools": &tools[window.start..window.end] });
    if let Some(next) = window.next_cursor {
        result["nextCursor"] = Value::String(next);
    }
    Ok(result)
}

/// Which tools of a listing a page holds: `start..end`, and the cursor of the page after it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub start: usize,
    pub end: usize,
    pub next_cursor: Option<String>,
}

/// The page after `cursor` of a listing of `len` tools whose `i`th exposed name is `name_at(i)`
/// (sorted): what [`page`] serves, for a listing held as text (`listing`).
pub(crate) fn window<'a>(
    len: usize,
    name_at: impl Fn(usize) -> &'a str,
    cursor: Option<&str>,
    size: Option<usize>,
) -> Result<Window, WireError> {
    let Some(size) = size else {
        if let Some(cursor) = cursor {
            return Err(invalid(format!(
                "unknown cursor {cursor:?}: the tool list is one page"
            )));
        }
        return Ok(Window {
            start: 0,
            end: len,
            next_cursor: None,
        });
    };
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let after = decode(cursor)?;
            partition_point(len, |i| name_at(i) <= after.as_str())
        }
    };
    let end = len.min(start + size.max(1));
    let next_cursor = (end < len).then(|| encode(name_at(end - 1)));
    Ok(Window {
        start,
        end,
        next_cursor,
    })
}

/// The first index in `0..len` where `before` turns false (it holds on a prefix).
fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

#[cfg(test)]
fn name(tool: &Value) -> &str {
    tool["name"].as_str().unwrap_or_default()
}

fn encode(last: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{CURSOR_PREFIX}{last}"))
}

fn decode(cursor: &str) -> Result<String, WireError> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| text.strip_prefix(CURSOR_PREFIX).map(str::to_owned))
        .ok_or_else(|| {
            invalid(format!(
                "unknown cursor {cursor:?}: pass a `nextCursor` of this sidecar, or none to list from the start"
            ))
        })
}

fn invalid(message: String) -> WireError {
    WireError::invalid_params(message).with_data(json!({"field": "cursor"}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[&str]) -> Vec<Value> {
        names.iter().map(|n| json!({"name": n})).collect()
    }

    fn names(page: &Value) -> Vec<&str> {
        page["tools"].as_array().unwrap().iter().map(name).collect()
    }

    #[test]
    fn pages_follow_their_cursors_to_the_end() {
        let all = tools(&["a__x", "a__y", "b__x", "b__y", "c__z"]);
        let first = page(&all, None, Some(2)).unwrap();
        assert_eq!(names(&first), ["a__x", "a__y"]);
        let cursor = first["nextCursor"].as_str().unwrap();
        assert!(!cursor.contains("a__y"), "opaque: {cursor}");
        let second = page(&all, Some(cursor), Some(2)).unwrap();
        assert_eq!(names(&second), ["b__x", "b__y"]);
        let last = page(&all, second["nextCursor"].as_str(), Some(2)).unwrap();
        assert_eq!(names(&last), ["c__z"]);
        assert!(last.get("nextCursor").is_none());
    }

    #[test]
    fn a_changed_tool_set_neither_repeats_nor_skips_a_tool_that_stayed() {
        let before = tools(&["a__x", "a__y", "b__x", "b__y"]);
        let cursor = page(&before, None, Some(2)).unwrap()["nextCursor"].clone();
        let after = tools(&["a__w", "a__x", "b__x", "b__y"]);
        let next = page(&after, cursor.as_str(), Some(2)).unwrap();
        assert_eq!(names(&next), ["b__x", "b__y"]);
    }

    #[test]
    fn a_foreign_cursor_is_invalid_params_and_one_page_takes_none() {
        let all = tools(&["a__x"]);
        for bad in ["%%%", "bm90LW91cnM", ""] {
            let e = page(&all, Some(bad), Some(2)).unwrap_err();
            assert_eq!(e.code, -32602, "{bad}");
        }
        assert_eq!(names(&page(&all, None, None).unwrap()), ["a__x"]);
        assert_eq!(page(&all, Some("x"), None).unwrap_err().code, -32602);
    }
}
