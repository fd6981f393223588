//! [`ServerName`] and [`ToolName`]: a server's name (a key of the config's `servers`) and a tool's
//! name (as its server lists it), as two types, so that code holding both cannot swap them.
//!
//! Both are an `Arc<str>` inside: cloning one, as every call and every catalog entry does, copies
//! a pointer, not the text. On the wire they are the bare string (`serde(transparent)` over serde's
//! `rc` support), so no message changes. They borrow as `str` for map lookups (`map.get("github")` on a map keyed by
//! [`ServerName`]) but do not deref to it: reading the text is an explicit `.as_str()`, so a
//! `ServerName` never slides into a parameter that wants a tool's name.
//!
//! The exposed name a model sees for a pair (`mcp__<server>__<tool>`) is `convert::names`' job.
//!
//! ```
//! use mcp_sidecar::names::{ServerName, ToolName};
//! fn call(server: &ServerName, tool: &ToolName) -> String {
//!     format!("{server}.{tool}")
//! }
//! let (server, tool) = (ServerName::from("github"), ToolName::from("search"));
//! assert_eq!(call(&server, &tool), "github.search");
//! ```
//!
//! The pair given the wrong way round does not compile:
//!
//! ```compile_fail,E0308
//! use mcp_sidecar::names::{ServerName, ToolName};
//! fn call(server: &ServerName, tool: &ToolName) {}
//! let (server, tool) = (ServerName::from("github"), ToolName::from("search"));
//! call(&tool, &server);
//! ```
//!
//! Nor does a name slide into a `&str` parameter unasked (no `Deref`):
//!
//! ```compile_fail,E0308
//! use mcp_sidecar::names::ToolName;
//! fn for_a_server(server: &str) {}
//! for_a_server(&ToolName::from("search"));
//! ```

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

/// Declares one name type; the two differ only in what they name.
macro_rules! name_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// The name's text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&*self.0, f)
            }
        }

        /// Lookups by text in maps and sets keyed by the name. Sound because `Eq`, `Ord` and
        /// `Hash` are derived from the `str` inside, so they agree with `str`'s.
        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl From<&str> for $name {
            fn from(name: &str) -> Self {
                $name(Arc::from(name))
            }
        }

        impl From<String> for $name {
            fn from(name: String) -> Self {
                $name(Arc::from(name))
            }
        }

        impl From<&String> for $name {
            fn from(name: &String) -> Self {
                $name(Arc::from(name.as_str()))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                &*self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                &*self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &*self.0 == other.as_str()
            }
        }
    };
}

name_type!(
    /// A server's name: its key in the config's `servers`, and how every message names it.
    ServerName
);

name_type!(
    /// A tool's name as its server lists it (not the exposed name a model sees).
    ToolName
);

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::*;

    #[test]
    fn the_wire_form_is_the_bare_string() {
        let server = ServerName::from("git hub");
        assert_eq!(serde_json::to_string(&server).unwrap(), r#""git hub""#);
        let tool: ToolName = serde_json::from_str(r#""create_issue""#).unwrap();
        assert_eq!(tool.as_str(), "create_issue");
        assert!(serde_json::from_str::<ToolName>("1").is_err());
    }

    #[test]
    fn maps_keyed_by_a_name_are_looked_up_by_text() {
        let mut by_server: BTreeMap<ServerName, u32> = BTreeMap::new();
        by_server.insert(ServerName::from("github"), 1);
        assert_eq!(by_server.get("github"), Some(&1));
        assert_eq!(by_server.get("gitlab"), None);
        let mut by_tool: HashMap<ToolName, u32> = HashMap::new();
        by_tool.insert(ToolName::from(String::from("search")), 2);
        assert_eq!(by_tool.get("search"), Some(&2));
    }

    #[test]
    fn a_clone_shares_the_text() {
        let server = ServerName::from("github");
        let copy = server.clone();
        assert!(std::ptr::eq(server.as_str(), copy.as_str()));
    }

    #[test]
    fn display_and_debug_show_the_text() {
        let tool = ToolName::from("search");
        assert_eq!(tool.to_string(), "search");
        assert_eq!(format!("{tool:?}"), r#""search""#);
        assert_eq!(ServerName::from("b"), "b");
        let (a, b) = (ServerName::from("a"), ServerName::from("b"));
        assert!(a < b, "ordered as their text");
    }
}
