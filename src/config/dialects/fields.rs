//! The shared reader of one server entry: checks each field against the dialect's table (type,
//! unknown fields with "did you mean", variable expansion) and hands the dialect typed values.
//! A dialect then only decides what its fields mean.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::config::diagnostics::{did_you_mean, index, join, Diagnostic, Kind};
use crate::config::expand::{Expanded, Vars};
use crate::config::strict::snake;
use crate::limits;

/// The JSON type a field must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Str,
    StrList,
    StrMap,
    /// A non-negative number.
    Number,
    Bool,
    /// `sandbox`: `false`, `true`, a preset's name or an object, passed on whole with the paths of
    /// its `read` and `write` lists expanded (the server config checks the rest).
    Sandbox,
    /// Read but not used by this sidecar: a warning says so.
    Ignored,
}

/// One field a dialect defines.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    /// `${…}` expansion applies (strings, list items, map values).
    pub expand: bool,
}

pub const fn f(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        expand: false,
    }
}

pub const fn fx(name: &'static str, ty: Ty) -> Field {
    Field {
        name,
        ty,
        expand: true,
    }
}

/// The sidecar's own fields, accepted in every dialect (tools policy, secrets, deferral, resources
/// as tools, tool pins, serial calls): the one table of them, which
/// [`extras::split`](crate::config::extras::split) reads them by too.
pub const EXTENSIONS: &[Field] = &[
    f("includeTools", Ty::StrList),
    f("excludeTools", Ty::StrList),
    f("expectTools", Ty::StrList),
    f("permissions", Ty::StrList),
    f("permissionMetaKey", Ty::Str),
    f("secretEnv", Ty::StrList),
    f("secretHeaders", Ty::StrList),
    f("secretValues", Ty::StrList),
    f("maskSecretsInResults", Ty::Bool),
    f("resourcesAsTools", Ty::Bool),
    f("pinTools", Ty::Bool),
    f("supportsParallel", Ty::Bool),
    f("defer", Ty::Bool),
];

/// The server config's own supervision and budget fields, accepted in every dialect (both
/// spellings) and passed on as they are, so that a host's file can carry them for the sidecar —
/// `mcp-sidecar mcp --config` has no other way to set a server's timeouts, result budget, restart
/// policy or lazy start. Their values are checked by the server config itself, as in `servers/add`.
pub const SUPERVISION: &[Field] = &[
    f("startupTimeoutSeconds", Ty::Number),
    f("toolTimeoutSeconds", Ty::Number),
    f("resetTimeoutOnProgress", Ty::Bool),
    f("maxTotalTimeoutSeconds", Ty::Number),
    f("maxMessageBytes", Ty::Number),
    f("maxResultBytes", Ty::Number),
    f("resultPolicy", Ty::Str),
    f("restart", Ty::Str),
    f("restartBackoffMs", Ty::Number),
    f("keepaliveSeconds", Ty::Number),
    f("idleTimeoutSeconds", Ty::Number),
    f("maxLifetimeSeconds", Ty::Number),
    f("maxInflight", Ty::Number),
    f("autoStart", Ty::Bool),
    f("protocolVersion", Ty::Str),
    fx("sandbox", Ty::Sandbox),
];

/// A read entry: field name → value (expanded), plus the keys of maps whose value used a secret.
#[derive(Debug, Default)]
pub struct Entry {
    pub values: BTreeMap<&'static str, Value>,
    /// `(field, key)` of map values that used a secret input (e.g. `("env", "TOKEN")`).
    pub secret_keys: Vec<(&'static str, String)>,
    /// Values of secret expansions that landed in a string or list field (args, url, cwd…).
    pub secret_values: Vec<String>,
}

impl Entry {
    pub fn str(&self, name: &str) -> Option<&str> {
        self.values.get(name).and_then(Value::as_str)
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name)
    }
}

/// How keys may be spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Exact,
    /// camelCase and snake_case of each name.
    Both,
}

/// Reads one server entry at `path`. Problems go to `diags`; `None` when any is an error.
pub fn read_entry(
    raw: &Value,
    path: &str,
    fields: &[Field],
    case: Case,
    vars: &Vars<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Entry> {
    let Value::Object(map) = raw else {
        diags.push(Diagnostic::error(
            Kind::WrongType,
            path,
            "a server entry must be an object",
        ));
        return None;
    };
    // Every unknown field is a diagnostic of its own: an entry of a million fields would be a
    // million of them. No dialect has this many.
    if map.len() > limits::CONFIG_ENTRY_MAX_FIELDS {
        diags.push(Diagnostic::error(
            Kind::TooLarge,
            path,
            format!(
                "the entry has {} fields; the limit is {}",
                map.len(),
                limits::CONFIG_ENTRY_MAX_FIELDS
            ),
        ));
        return None;
    }
    let before = diags.iter().filter(|d| d.is_error()).count();
    let mut entry = Entry::default();
    let all = fields.iter().chain(EXTENSIONS).chain(SUPERVISION);
    for (key, value) in map {
        let at = join(path, key);
        // The sidecar's own fields are read in both spellings in every dialect (as in
        // `servers/add`); a dialect's own fields as the dialect spells them.
        let Some(field) = fields
            .iter()
            .find(|f| f.name == key || (case == Case::Both && snake(f.name) == *key))
            .or_else(|| {
                EXTENSIONS
                    .iter()
                    .chain(SUPERVISION)
                    .find(|f| f.name == key || snake(f.name) == *key)
            })
        else {
            let names: Vec<&str> = all.clone().map(|f| f.name).collect();
            match did_you_mean(key, &names) {
                // Close to a known field: most likely a typo, and using the entry without it would
                // silently change its meaning.
                Some(hint) => diags.push(Diagnostic::error(
                    Kind::UnknownField,
                    at,
                    format!("unknown field `{key}` (did you mean `{hint}`?)"),
                )),
                None => diags.push(Diagnostic::warning(
                    Kind::UnknownField,
                    at,
                    format!("unknown field `{key}` is ignored"),
                )),
            }
            continue;
        };
        if entry.values.contains_key(field.name) {
            diags.push(Diagnostic::error(
                Kind::Invalid,
                at,
                format!("`{}` is given twice (camelCase and snake_case)", field.name),
            ));
            continue;
        }
        if let Some(v) = read_value(field, value, &at, vars, &mut entry, diags) {
            entry.values.insert(field.name, v);
        }
    }
    (diags.iter().filter(|d| d.is_error()).count() == before).then_some(entry)
}

fn read_value(
    field: &Field,
    value: &Value,
    at: &str,
    vars: &Vars<'_>,
    entry: &mut Entry,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let wrong = |diags: &mut Vec<Diagnostic>, what: &str| {
        diags.push(Diagnostic::error(
            Kind::WrongType,
            at,
            format!("`{}` must be {what}", field.name),
        ));
        None
    };
    match (field.ty, value) {
        (Ty::Ignored, _) => {
            diags.push(Diagnostic::warning(
                Kind::Ignored,
                at,
                format!(
                    "`{}` is not supported by this sidecar and is ignored",
                    field.name
                ),
            ));
            None
        }
        (Ty::Str, Value::String(s)) => expand(field, vars, s, at, diags).map(|e| {
            entry.secret_values.extend(e.secret_values);
            Value::from(e.text)
        }),
        (Ty::Str, _) => wrong(diags, "a string"),
        (Ty::StrList, Value::Array(items)) => string_list(field, vars, items, at, entry, diags),
        (Ty::StrList, _) => wrong(diags, "an array of strings"),
        (Ty::StrMap, Value::Object(m)) => string_map(field, vars, m, at, entry, diags),
        (Ty::StrMap, _) => wrong(diags, "an object of strings"),
        (Ty::Number, Value::Number(n)) if n.as_f64().is_some_and(|x| x >= 0.0) => {
            Some(value.clone())
        }
        (Ty::Number, _) => wrong(diags, "a non-negative number"),
        (Ty::Bool, Value::Bool(_)) => Some(value.clone()),
        (Ty::Bool, _) => wrong(diags, "true or false"),
        (Ty::Sandbox, Value::Bool(_) | Value::String(_)) => Some(value.clone()),
        (Ty::Sandbox, Value::Object(m)) => sandbox_object(field, vars, m, at, entry, diags),
        (Ty::Sandbox, _) => wrong(diags, "false, true, a preset's name or an object"),
    }
}

/// The `sandbox` object with the strings of its `read` and `write` lists expanded (`${HOME}/x`);
/// anything else is passed on as written, for the server config to check.
fn sandbox_object(
    field: &Field,
    vars: &Vars<'_>,
    m: &Map<String, Value>,
    at: &str,
    entry: &mut Entry,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let mut out = m.clone();
    let mut ok = true;
    for key in ["read", "write"] {
        if let Some(Value::Array(items)) = m.get(key) {
            match string_list(field, vars, items, &join(at, key), entry, diags) {
                Some(list) => {
                    out.insert(key.to_owned(), list);
                }
                None => ok = false,
            }
        }
    }
    ok.then_some(Value::Object(out))
}

/// `s` with its `${…}` expanded when the field takes expansion, and the secrets it used.
fn expand(
    field: &Field,
    vars: &Vars<'_>,
    s: &str,
    at: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Expanded> {
    if !field.expand {
        return Some(Expanded {
            text: s.to_owned(),
            secret: false,
            secret_values: Vec::new(),
        });
    }
    match vars.expand(s) {
        Ok(e) => Some(e),
        Err(why) => {
            diags.push(Diagnostic::error(
                Kind::UnresolvedVariable,
                at,
                why.to_string(),
            ));
            None
        }
    }
}

/// A list of strings, each expanded (the secrets used go to `entry`); `None` when any item is not
/// a string or fails to expand.
fn string_list(
    field: &Field,
    vars: &Vars<'_>,
    items: &[Value],
    at: &str,
    entry: &mut Entry,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    // Counted before anything is copied or reported item by item: a list of a million items is
    // one diagnostic, not a million, and never a second copy.
    let max = list_max(field.name);
    if items.len() > max {
        diags.push(too_many(field, at, items.len(), max, "items"));
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    let mut bytes = 0;
    for (i, item) in items.iter().enumerate() {
        let at = index(at, i);
        match item {
            Value::String(s) => match expand(field, vars, s, &at, diags) {
                Some(e) => {
                    bytes += e.text.len();
                    if field.name == "args" && bytes > limits::CONFIG_ARGS_MAX_BYTES {
                        diags.push(Diagnostic::error(
                            Kind::TooLarge,
                            at,
                            format!(
                                "`args` hold more than {} bytes together (the limit)",
                                limits::CONFIG_ARGS_MAX_BYTES
                            ),
                        ));
                        return None;
                    }
                    entry.secret_values.extend(e.secret_values);
                    out.push(Value::from(e.text));
                }
                None => ok = false,
            },
            _ => {
                diags.push(Diagnostic::error(Kind::WrongType, at, "must be a string"));
                ok = false;
            }
        }
    }
    ok.then_some(Value::Array(out))
}

/// An object of strings, each value expanded; the keys whose value used a secret go to `entry`.
fn string_map(
    field: &Field,
    vars: &Vars<'_>,
    m: &Map<String, Value>,
    at: &str,
    entry: &mut Entry,
    diags: &mut Vec<Diagnostic>,
) -> Option<Value> {
    if m.len() > limits::CONFIG_ENV_MAX {
        diags.push(too_many(
            field,
            at,
            m.len(),
            limits::CONFIG_ENV_MAX,
            "entries",
        ));
        return None;
    }
    if field.name == "env" {
        let bytes: usize = m
            .iter()
            .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
            .sum();
        if bytes > limits::CONFIG_ENV_MAX_BYTES {
            diags.push(Diagnostic::error(
                Kind::TooLarge,
                at,
                format!(
                    "`env` holds {bytes} bytes; the limit is {}",
                    limits::CONFIG_ENV_MAX_BYTES
                ),
            ));
            return None;
        }
    }
    let mut out = Map::new();
    let mut ok = true;
    for (k, v) in m {
        let at = join(at, k);
        match v {
            // Map values may be secrets: the diagnostic names the key, never the value.
            Value::String(s) => match expand(field, vars, s, &at, diags) {
                Some(e) => {
                    if e.secret {
                        entry.secret_keys.push((field.name, k.clone()));
                    }
                    // The key marks the whole value; the substituted part alone may show elsewhere.
                    entry.secret_values.extend(e.secret_values);
                    out.insert(k.clone(), Value::from(e.text));
                }
                None => ok = false,
            },
            _ => {
                diags.push(Diagnostic::error(Kind::WrongType, at, "must be a string"));
                ok = false;
            }
        }
    }
    ok.then_some(Value::Object(out))
}

/// The most items list `field` may hold: [`limits::CONFIG_ARGS_MAX`] for `args`,
/// [`limits::CONFIG_LIST_MAX`] for the others.
fn list_max(field: &str) -> usize {
    if field == "args" {
        limits::CONFIG_ARGS_MAX
    } else {
        limits::CONFIG_LIST_MAX
    }
}

fn too_many(field: &Field, at: &str, given: usize, max: usize, what: &str) -> Diagnostic {
    Diagnostic::error(
        Kind::TooLarge,
        at,
        format!("`{}` has {given} {what}; the limit is {max}", field.name),
    )
}

/// Copies the sidecar's own fields of `entry` (extensions and supervision) into the canonical
/// config; an explicit supervision field wins over what a dialect's own field set.
pub fn copy_extensions(entry: &Entry, out: &mut Map<String, Value>) {
    for field in EXTENSIONS.iter().chain(SUPERVISION) {
        if let Some(v) = entry.get(field.name) {
            out.insert(field.name.to_owned(), v.clone());
        }
    }
    let mut secret_env: Vec<Value> = Vec::new();
    let mut secret_headers: Vec<Value> = Vec::new();
    for (field, key) in &entry.secret_keys {
        match *field {
            "env" => secret_env.push(Value::from(key.as_str())),
            _ => secret_headers.push(Value::from(key.as_str())),
        }
    }
    let secret_values = entry.secret_values.iter().map(|v| Value::from(v.as_str()));
    for (name, add) in [
        ("secretEnv", secret_env),
        ("secretHeaders", secret_headers),
        ("secretValues", secret_values.collect()),
    ] {
        if add.is_empty() {
            continue;
        }
        let list = out.entry(name).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            items.extend(add);
        }
    }
}
