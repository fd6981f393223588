//! The resources a 2026-07-28 session watches (that era's `resources/subscribe`), and the
//! `subscriptions/listen` stream that watches them (`listen` opens and replaces it): which
//! subscription changes the set, and which stream a change replaces.

use std::collections::BTreeSet;

/// The resources watched on a modern session, and the listen stream that watches them.
#[derive(Default)]
pub struct WatchedResources {
    uris: BTreeSet<String>,
    listen: Option<i64>,
}

/// A change of the set: the stream it replaces, and the set the new stream (if any) asks for.
pub struct Change {
    pub replaced: Option<i64>,
    pub uris: BTreeSet<String>,
}

impl WatchedResources {
    /// Adds (`on`) or removes `uri`; `None` when that changes nothing.
    pub fn change(&mut self, uri: &str, on: bool) -> Option<Change> {
        let changed = if on {
            self.uris.insert(uri.to_owned())
        } else {
            self.uris.remove(uri)
        };
        changed.then(|| Change {
            replaced: self.listen.take(),
            uris: self.uris.clone(),
        })
    }

    /// The stream now watching the set.
    pub fn listening(&mut self, id: i64) {
        self.listen = Some(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_replaces_the_stream_and_a_repeat_changes_nothing() {
        let mut w = WatchedResources::default();
        let first = w.change("a://1", true).unwrap();
        assert_eq!((first.replaced, first.uris.len()), (None, 1));
        w.listening(7);
        assert!(w.change("a://1", true).is_none(), "already watched");
        let second = w.change("a://2", true).unwrap();
        assert_eq!(second.replaced, Some(7));
        assert_eq!(second.uris.len(), 2);
        w.listening(8);
        assert!(w.change("a://3", false).is_none(), "never watched");
        let emptied = w.change("a://1", false).unwrap();
        assert_eq!(emptied.replaced, Some(8));
        assert_eq!(emptied.uris.into_iter().collect::<Vec<_>>(), ["a://2"]);
    }
}
