//! A message's `params` kept as the text the peer wrote ([`Params`]), and how each reader takes
//! them ([`FromParams`]): as that text, to read straight into a handler's own type, or as a value
//! tree, for a reader that walks one.

use serde_json::value::RawValue;
use serde_json::Value;

/// A request's or a notification's `params` (an object or an array) as the peer wrote them: kept
/// as text, so a handler reads them straight into its own type instead of through a tree of
/// values built only to be taken apart again (a call's path pays for that tree on every call).
#[derive(Debug)]
pub struct Params(Box<RawValue>);

impl Params {
    /// Params the line check let through (an object or an array).
    pub(super) fn new(text: Box<RawValue>) -> Self {
        Self(text)
    }

    /// The JSON text, without surrounding whitespace.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// Whether they are an object (the other shape the line check lets through is an array).
    pub fn is_object(&self) -> bool {
        self.0.get().starts_with('{')
    }
}

/// How a reader takes a message's params: as their text ([`Params`]), or as a value tree.
pub trait FromParams: Sized {
    /// Fails only for what a tree cannot hold (a number beyond `f64`): the line is then not JSON
    /// to this reader, as it was before params were kept as text.
    fn from_params(params: Params) -> Result<Self, serde_json::Error>;
}

impl FromParams for Params {
    fn from_params(params: Params) -> Result<Self, serde_json::Error> {
        Ok(params)
    }
}

impl FromParams for Value {
    fn from_params(params: Params) -> Result<Self, serde_json::Error> {
        serde_json::from_str(params.0.get())
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
        // What a tree cannot hold: still not JSON to a reader of trees, as before.
        let huge = br#"{"jsonrpc":"2.0","method":"m","params":{"n":1e400}}"#;
        assert!(Incoming::<Value>::parse(huge).is_err());
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
