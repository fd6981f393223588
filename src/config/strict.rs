//! Strict reading of a config object into a serde-derived struct. Every key must be one of the
//! struct's fields — its camelCase name or the snake_case alias it carries — given once; an unknown
//! key is named with the field it is probably a typo of, and a value of the wrong type is named by
//! its path (`args[1]`, `env.KEY`). serde's own messages say neither (and quote values, which may be
//! secrets), so the caller words the problem from the field alone.
//!
//! The field names come from the struct itself (the list serde's derive hands to
//! `deserialize_struct`, aliases included): one source of truth, no table to keep in step.

use std::collections::BTreeSet;

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, Visitor};
use serde_json::Value;

use super::diagnostics::did_you_mean;
use super::invalid::invalid;
use crate::error::Error;

/// A read struct, and the canonical names of the fields the object gave (`null` counts as given).
#[derive(Debug)]
pub(super) struct Read<T> {
    pub value: T,
    pub given: BTreeSet<&'static str>,
}

/// Why an object could not be read.
#[derive(Debug)]
pub(super) enum Problem {
    /// Not an object, an unknown field, or one field in both spellings (the error is worded).
    Invalid(Error),
    /// A value of the wrong type: `top` is the canonical field, `at` the path below it when the
    /// wrong value is an item of it (`args[1]`, `env.KEY`), else the field itself.
    WrongType { top: &'static str, at: String },
}

/// Reads `value` into `T`. Keys are checked against `T`'s fields first, so that an unknown field is
/// reported as such (with a "did you mean") whatever its value.
pub(super) fn read<T: DeserializeOwned>(value: &Value) -> Result<Read<T>, Problem> {
    read_at(value, None)
}

/// [`read`] for an object nested in the config at field `within` (`oauth`): the fields its errors
/// name are qualified (`oauth.clientId`). A `WrongType` path stays relative to the object.
pub(super) fn read_at<T: DeserializeOwned>(
    value: &Value,
    within: Option<&str>,
) -> Result<Read<T>, Problem> {
    let qualified = |key: &str| match within {
        Some(w) => format!("{w}.{key}"),
        None => key.to_owned(),
    };
    let Value::Object(map) = value else {
        return Err(Problem::Invalid(match within {
            Some(w) => invalid(w, "must be an object"),
            None => invalid("config", "config must be an object"),
        }));
    };
    let accepted = fields::<T>();
    let mut given = BTreeSet::new();
    for key in map.keys() {
        let Some(canonical) = canonical(accepted, key) else {
            let names: Vec<&str> = names(accepted).collect();
            let hint = did_you_mean(key, &names)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(Problem::Invalid(invalid(
                &qualified(key),
                format!("unknown field `{key}`{hint}"),
            )));
        };
        if !given.insert(canonical) {
            return Err(Problem::Invalid(invalid(
                &qualified(key),
                format!("`{canonical}` is given twice (camelCase and snake_case)"),
            )));
        }
    }
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(value) => Ok(Read { value, given }),
        Err(e) => Err(wrong_type(accepted, e.path())),
    }
}

/// The canonical (camelCase) names of `T`'s fields.
pub(super) fn canonical_names<T: DeserializeOwned>() -> Vec<&'static str> {
    names(fields::<T>()).collect()
}

/// `startupTimeoutSeconds` → `startup_timeout_seconds`: the one snake_case spelling of a name.
pub(super) fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// For `#[serde(default, deserialize_with = "strict::present")]` on an `Option` field: `null` is a
/// value of the wrong type there, not an absent field.
pub(super) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Canonical names are the spellings without `_` (each snake_case alias has one, being two words).
fn names(accepted: &'static [&'static str]) -> impl Iterator<Item = &'static str> {
    accepted.iter().copied().filter(|f| !f.contains('_'))
}

fn canonical(accepted: &'static [&'static str], key: &str) -> Option<&'static str> {
    if !accepted.contains(&key) {
        return None;
    }
    names(accepted).find(|f| f == &key || snake(f) == key)
}

fn wrong_type(accepted: &'static [&'static str], path: &serde_path_to_error::Path) -> Problem {
    use serde_path_to_error::Segment;
    let mut segments = path.iter();
    let top = match segments.next() {
        Some(Segment::Map { key }) => canonical(accepted, key),
        _ => None,
    };
    let Some(top) = top else {
        // Not below a field (cannot happen for an object that passed the key check).
        return Problem::Invalid(invalid("config", "config must be an object"));
    };
    let mut at = top.to_owned();
    for segment in segments {
        match segment {
            Segment::Seq { index } => at.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                at.push('.');
                at.push_str(key);
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    Problem::WrongType { top, at }
}

/// The spellings serde's derive accepts for `T` (names and aliases), captured from the list it
/// passes to `deserialize_struct`.
fn fields<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut capture = FieldList(&[]);
    // The capture always ends in an error: it only wanted the list.
    let _ = T::deserialize(&mut capture);
    capture.0
}

struct FieldList(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut FieldList {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("fields captured"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Sample {
        #[serde(default, deserialize_with = "present")]
        name: Option<String>,
        #[serde(alias = "item_list")]
        item_list: Option<Vec<String>>,
        #[serde(alias = "env_map")]
        env_map: Option<std::collections::BTreeMap<String, String>>,
    }

    fn problem(v: Value) -> Problem {
        read::<Sample>(&v).unwrap_err()
    }

    #[test]
    fn field_names_come_from_the_struct() {
        assert_eq!(
            canonical_names::<Sample>(),
            vec!["name", "itemList", "envMap"]
        );
        assert_eq!(snake("itemList"), "item_list");
    }

    #[test]
    fn both_spellings_and_nulls() {
        let r = read::<Sample>(&json!({"item_list": ["a"], "envMap": null, "name": "n"})).unwrap();
        assert_eq!(r.value.item_list, Some(vec!["a".to_owned()]));
        assert_eq!(r.value.name.as_deref(), Some("n"));
        assert!(r.value.env_map.is_none());
        assert_eq!(r.given, ["envMap", "itemList", "name"].into());
        // `present`: null is a wrong type.
        assert!(matches!(
            problem(json!({"name": null})),
            Problem::WrongType { top: "name", at } if at == "name"
        ));
    }

    #[test]
    fn errors_name_the_field_and_never_the_value() {
        let Problem::Invalid(e) = problem(json!({"itemLst": []})) else {
            panic!("not invalid")
        };
        assert_eq!(e.details["field"], "itemLst");
        assert!(
            e.message.contains("did you mean `itemList`"),
            "{}",
            e.message
        );
        let Problem::Invalid(e) = problem(json!({"itemList": [], "item_list": []})) else {
            panic!("not invalid")
        };
        assert!(e.message.contains("given twice"), "{}", e.message);
        let Problem::Invalid(e) = problem(json!("x")) else {
            panic!("not invalid")
        };
        assert_eq!(e.details["field"], "config");
        for (v, top, at) in [
            (json!({"item_list": ["a", 1]}), "itemList", "itemList[1]"),
            (json!({"itemList": "a"}), "itemList", "itemList"),
            (json!({"env_map": {"K": 2}}), "envMap", "envMap.K"),
        ] {
            match problem(v) {
                Problem::WrongType { top: t, at: a } => assert_eq!((t, a.as_str()), (top, at)),
                other => panic!("{other:?}"),
            }
        }
    }
}
