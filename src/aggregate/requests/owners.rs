//! Which server owns what the aggregate lists beyond tools: a resource URI or URI template (passed
//! to the client unchanged) and a prompt's exposed name (`mcp__<server>__<prompt>` by the tools'
//! name template). Learnt from every listing a client pages through; bounded
//! ([`limits::AGGREGATE_OWNERS_MAX`]: past it the map starts afresh), so what it forgot — or never
//! saw, a client that reads before it lists — is found by asking the servers (`surface`).
//!
//! Two servers listing the same URI: the first by name owns it (the listing visits servers in
//! name order), so the answer does not depend on which page a client read last.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::limits;

#[derive(Default)]
pub(crate) struct Owners {
    /// Resource URI or URI template → server.
    resources: Mutex<HashMap<String, String>>,
    /// Exposed prompt name → (server, the prompt's own name).
    prompts: Mutex<HashMap<String, (String, String)>>,
}

impl Owners {
    /// `server` lists `uri` (a URI or a URI template).
    pub(crate) fn saw_resource(&self, uri: &str, server: &str) {
        let mut map = lock(&self.resources);
        if let Some(owner) = map.get_mut(uri) {
            if server < owner.as_str() {
                *owner = server.to_owned();
            }
            return;
        }
        if map.len() >= limits::AGGREGATE_OWNERS_MAX {
            map.clear();
        }
        map.insert(uri.to_owned(), server.to_owned());
    }

    /// The server that listed `uri`, if remembered.
    pub(crate) fn resource(&self, uri: &str) -> Option<String> {
        lock(&self.resources).get(uri).cloned()
    }

    /// `server` lists its prompt `prompt` as `exposed`.
    pub(crate) fn saw_prompt(&self, exposed: &str, server: &str, prompt: &str) {
        let mut map = lock(&self.prompts);
        if map.len() >= limits::AGGREGATE_OWNERS_MAX && !map.contains_key(exposed) {
            map.clear();
        }
        map.insert(exposed.to_owned(), (server.to_owned(), prompt.to_owned()));
    }

    /// `(server, prompt)` of an exposed prompt name, if remembered.
    pub(crate) fn prompt(&self, exposed: &str) -> Option<(String, String)> {
        lock(&self.prompts).get(exposed).cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_two_servers_list_belongs_to_the_first_by_name() {
        let owners = Owners::default();
        owners.saw_resource("file:///a", "beta");
        owners.saw_resource("file:///a", "alpha");
        owners.saw_resource("file:///a", "gamma");
        assert_eq!(owners.resource("file:///a").as_deref(), Some("alpha"));
        assert_eq!(owners.resource("file:///b"), None);
        owners.saw_prompt("mcp__a__greet", "a", "greet");
        assert_eq!(
            owners.prompt("mcp__a__greet"),
            Some(("a".into(), "greet".into()))
        );
    }
}
