//! A message's `params` kept as the text the peer wrote ([`Params`]), and the forms a reader can
//! take them in ([`ParamsForm`]): that text, to read straight into a handler's own type, or a value
//! tree, for a reader that walks one. Either is read from the line in the one pass that reads the
//! message.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// A request's or a notification's `params` (an object or an array) as the peer wrote them: kept
/// as text, so a handler reads them straight into its own type instead of through a tree of
/// values built only to be taken apart again (a call's path pays for that tree on every call).
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct Params(Box<RawValue>);

impl Params {
    /// The JSON text, without surrounding whitespace.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// Whether they are an object (the other shape the line check lets through is an array).
    pub fn is_object(&self) -> bool {
        self.0.get().starts_with('{')
    }
}

/// A form a reader takes a message's params in: their text ([`Params`]), or a value tree.
pub trait ParamsForm: DeserializeOwned {
    /// Whether they are an object or an array, the two shapes JSON-RPC allows.
    fn is_structured(&self) -> bool;
}

impl ParamsForm for Params {
    fn is_structured(&self) -> bool {
        self.0.get().starts_with(['{', '['])
    }
}

impl ParamsForm for Value {
    fn is_structured(&self) -> bool {
        self.is_object() || self.is_array()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::Incoming;
    use serde_json::json;

    #[test]
    fn params_are_kept_as_text_or_read_as_a_tree_as_the_reader_asks() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"m","params": {"b":[1, 2],"a":"x"} }"#;
        let Ok(Ok(Incoming::Request {
            params: Some(text), ..
        })) = Incoming::<Params>::parse(line)
        else {
            panic!("a request with params")
        };
        assert_eq!(text.text(), r#"{"b":[1, 2],"a":"x"}"#);
        assert!(text.is_object());
        let Ok(Ok(Incoming::Request {
            params: Some(tree), ..
        })) = Incoming::<Value>::parse(line)
        else {
            panic!("a request with params")
        };
        assert_eq!(tree, json!({"a": "x", "b": [1, 2]}));
        // What a tree cannot hold: to a reader of trees, a member of the wrong type, as before.
        let huge = br#"{"jsonrpc":"2.0","method":"m","params":{"n":1e400}}"#;
        let Ok(Err(not_rpc)) = Incoming::<Value>::parse(huge) else {
            panic!("not JSON-RPC to a reader of trees")
        };
        assert!(not_rpc.reason.contains("wrong type"), "{}", not_rpc.reason);
        assert!(matches!(
            Incoming::<Params>::parse(huge),
            Ok(Ok(Incoming::Notification { .. }))
        ));
        let array = br#"{"jsonrpc":"2.0","method":"m","params":[1]}"#;
        let Ok(Ok(Incoming::Notification {
            params: Some(array),
            ..
        })) = Incoming::<Params>::parse(array)
        else {
            panic!("a notification with params")
        };
        assert!(!array.is_object());
    }
}
