//! The protocol artefacts in `proto/` checked against the real binary and the code:
//!
//! - every golden transcript in `proto/transcripts/*.jsonl` is replayed against `mcp-sidecar` (format:
//!   `proto/transcripts/README.md`); an `expect` not met within the harness timeout fails with the
//!   closest held message and the paths where it differs;
//! - every message sent and received in those replays is validated against its schema in
//!   `proto/schema/` (requests and notifications by method, responses by their request's method,
//!   error responses by `error.json`); a `send` marked `"invalid": true` must be rejected instead;
//! - every `ErrorCode` appears in `proto/PROTOCOL.md` and in `error.json` with its numeric code.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcp_sidecar::ErrorCode;
use serde_json::{json, Value};

use crate::support::{fixture_bin, Sidecar, WAIT};

/// The URI every schema file is registered under, so that relative `$ref`s between files resolve
/// from the registry alone (no network, no file retrieval).
const SCHEMA_BASE: &str = "https://mcp-sidecar.invalid/proto/schema/";

fn proto_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("proto")
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Files in `dir` whose names end with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display()));
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    out.sort();
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every schema of `proto/schema`, compiled, by file name.
struct Schemas(HashMap<String, jsonschema::Validator>);

impl Schemas {
    fn load() -> Self {
        let docs: Vec<(String, Value)> = files(&proto_dir().join("schema"), ".json")
            .iter()
            .map(|p| (file_name(p), read_json(p)))
            .collect();
        for (name, doc) in &docs {
            if let Err(e) = jsonschema::meta::validate(doc) {
                panic!("{name} is not a valid JSON Schema: {e}");
            }
        }
        let registry = jsonschema::Registry::new()
            .extend(
                docs.iter()
                    .map(|(name, doc)| (format!("{SCHEMA_BASE}{name}"), doc)),
            )
            .and_then(jsonschema::RegistryBuilder::prepare)
            .unwrap_or_else(|e| panic!("cannot register the schemas: {e}"));
        let compiled = docs.iter().map(|(name, _)| {
            let root = json!({ "$ref": format!("{SCHEMA_BASE}{name}") });
            let validator = jsonschema::options()
                .with_registry(&registry)
                .build(&root)
                .unwrap_or_else(|e| panic!("cannot compile {name}: {e}"));
            (name.clone(), validator)
        });
        Schemas(compiled.collect())
    }

    /// The violations of `message` against schema file `name`, or `None` when there is no such file.
    fn violations(&self, name: &str, message: &Value) -> Option<Vec<String>> {
        let validator = self.0.get(name)?;
        Some(
            validator
                .iter_errors(message)
                .map(|e| format!("at '{}': {e}", e.instance_path()))
                .collect(),
        )
    }
}

/// `tools/call` → `tools-call`.
fn slug(method: &str) -> String {
    method.replace('/', "-")
}

/// Whether `actual` matches `pattern` (see the README); the differences, with their paths, go to `out`.
fn diff(pattern: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (pattern, actual) {
        (Value::String(any), _) if any == "<any>" => {}
        (Value::Object(want), Value::Object(got)) => {
            for (key, want) in want {
                match got.get(key) {
                    Some(got) => diff(want, got, &format!("{path}/{key}"), out),
                    None => out.push(format!("{path}/{key}: missing, expected {want}")),
                }
            }
        }
        (Value::Array(want), Value::Array(got)) if want.len() != got.len() => {
            out.push(format!(
                "{path}: expected {} elements, got {}: {actual}",
                want.len(),
                got.len()
            ));
        }
        (Value::Array(want), Value::Array(got)) => {
            for (i, (want, got)) in want.iter().zip(got).enumerate() {
                diff(want, got, &format!("{path}/{i}"), out);
            }
        }
        _ if pattern == actual => {}
        _ => out.push(format!("{path}: expected {pattern}, got {actual}")),
    }
}

fn differences(pattern: &Value, actual: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff(pattern, actual, "", &mut out);
    out
}

/// Replaces every string `"<fixture>"` with the fixture binary's path, and every string
/// `"<captured:NAME>"` with the value captured as NAME by an earlier `expect`.
fn substitute(
    value: &mut Value,
    fixture: &str,
    captured: &HashMap<String, Value>,
) -> Result<(), String> {
    match value {
        Value::String(s) if s == "<fixture>" => fixture.clone_into(s),
        Value::String(s) if s.starts_with("<captured:") && s.ends_with('>') => {
            let name = &s["<captured:".len()..s.len() - 1];
            *value = captured
                .get(name)
                .cloned()
                .ok_or_else(|| format!("nothing was captured as `{name}`"))?;
        }
        Value::Array(items) => {
            for v in items {
                substitute(v, fixture, captured)?;
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                substitute(v, fixture, captured)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(non-text panic)".to_owned())
}

/// One transcript being replayed.
struct Replay<'a> {
    schemas: &'a Schemas,
    sidecar: Sidecar,
    fixture: String,
    /// Method of every request sent, by id (as JSON text), to pick the schema of its response.
    methods: HashMap<String, String>,
    /// Method of every request the sidecar sent the host, by id, for the host's answer's schema.
    asked: HashMap<String, String>,
    /// Schema violations and unexpected responses; reported together at the end.
    problems: Vec<String>,
    /// Values taken from received messages by `capture`, for later `"<captured:NAME>"`.
    captured: HashMap<String, Value>,
}

impl Replay<'_> {
    /// Validates a message the host sends; `invalid` means it must be rejected by its schema.
    fn check_sent(&mut self, where_: &str, message: &Value, invalid: bool) {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let file = match message.get("id") {
            // The host's answer to one of the sidecar's own requests.
            Some(id) if message.get("method").is_none() => {
                match (self.asked.get(&id.to_string()), message.get("error")) {
                    (_, Some(_)) => "answer-error.json".to_owned(),
                    (Some(method), None) => format!("{}.result.json", slug(method)),
                    (None, None) => {
                        return self.problems.push(format!(
                            "{where_}: sent an answer to id {id}, which the sidecar never asked"
                        ))
                    }
                }
            }
            Some(id) => {
                self.methods.insert(id.to_string(), method.to_owned());
                format!("{}.request.json", slug(method))
            }
            None => format!("{}.json", slug(method)),
        };
        match (self.schemas.violations(&file, message), invalid) {
            (Some(v), false) if !v.is_empty() => self
                .problems
                .push(format!("{where_}: sent {message} violates {file}: {v:?}")),
            (None, false) => self
                .problems
                .push(format!("{where_}: no schema {file} for sent {message}")),
            (Some(v), true) if v.is_empty() => self.problems.push(format!(
                "{where_}: sent {message} is marked invalid but {file} accepts it"
            )),
            _ => {}
        }
    }

    /// Validates a message the sidecar sent.
    fn check_received(&mut self, where_: &str, message: &Value) {
        let method = message.get("method").and_then(Value::as_str);
        let file = if let (Some(method), Some(id)) = (method, message.get("id")) {
            // A request of the sidecar's own.
            self.asked.insert(id.to_string(), method.to_owned());
            format!("{}.request.json", slug(method))
        } else if let Some(method) = method {
            format!("{}.json", slug(method))
        } else if message.get("error").is_some() {
            "error.json".to_owned()
        } else {
            let id = message.get("id").map(Value::to_string).unwrap_or_default();
            match self.methods.get(&id) {
                Some(method) => format!("{}.result.json", slug(method)),
                None => {
                    return self.problems.push(format!(
                        "{where_}: response to id {id}, which was never sent: {message}"
                    ))
                }
            }
        };
        match self.schemas.violations(&file, message) {
            Some(v) if v.is_empty() => {}
            Some(v) => self.problems.push(format!(
                "{where_}: received {message} violates {file}: {v:?}"
            )),
            None => self
                .problems
                .push(format!("{where_}: no schema {file} for received {message}")),
        }
    }

    fn expect(&mut self, where_: &str, pattern: &Value) -> Result<Value, String> {
        let seen = RefCell::new(Vec::new());
        let waited = catch_unwind(AssertUnwindSafe(|| {
            self.sidecar.wait_for(|m| {
                seen.borrow_mut().push(m.clone());
                differences(pattern, m).is_empty()
            })
        }));
        match waited {
            Ok(message) => {
                self.check_received(where_, &message);
                Ok(message)
            }
            Err(panic) => {
                let held = seen.into_inner();
                let closest = held
                    .iter()
                    .map(|m| (differences(pattern, m), m))
                    .min_by_key(|(d, _)| d.len());
                // The harness's own message ends with its whole backlog; the head is enough here.
                let why: String = panic_text(panic.as_ref()).chars().take(60).collect();
                let closest = match closest {
                    Some((d, m)) => format!(
                        "closest of {} held message(s): {m:#}\ndiffers at:\n  {}",
                        held.len(),
                        d.join("\n  ")
                    ),
                    None => "no message was held".to_owned(),
                };
                let secs = WAIT.as_secs();
                Err(format!(
                    "{where_}: no message matched within {secs} s ({why}…)\nexpected: {pattern:#}\n{closest}"
                ))
            }
        }
    }

    fn step(&mut self, where_: &str, step: &Value) -> Result<(), String> {
        if let Some(message) = step.get("send") {
            let mut message = message.clone();
            substitute(&mut message, &self.fixture, &self.captured)
                .map_err(|e| format!("{where_}: {e}"))?;
            self.check_sent(where_, &message, step.get("invalid") == Some(&json!(true)));
            self.sidecar.write_raw(format!("{message}\n").as_bytes());
        } else if let Some(text) = step.get("send_raw").and_then(Value::as_str) {
            let repeat = step.get("repeat").and_then(Value::as_u64).unwrap_or(1);
            // A raw line that is a request still needs its method recorded for its response.
            let parsed: Value = serde_json::from_str(text).unwrap_or_default();
            if let (Some(id), Some(method)) = (parsed.get("id"), parsed["method"].as_str()) {
                self.methods.insert(id.to_string(), method.to_owned());
            }
            let line = text.repeat(usize::try_from(repeat).map_err(|e| e.to_string())?);
            self.sidecar.write_raw(format!("{line}\n").as_bytes());
        } else if let Some(pattern) = step.get("expect") {
            let message = self.expect(where_, pattern)?;
            let captures = step.get("capture").and_then(Value::as_object);
            for (name, pointer) in captures.into_iter().flatten() {
                let pointer = pointer.as_str().unwrap_or_default();
                let value = message.pointer(pointer).ok_or_else(|| {
                    format!("{where_}: capture `{name}`: nothing at {pointer} in {message}")
                })?;
                self.captured.insert(name.clone(), value.clone());
            }
        } else if step.get("close_stdin").is_some() {
            self.sidecar.close_stdin();
        } else if let Some(code) = step.get("expect_exit") {
            let got = self.sidecar.wait_exit();
            if Some(code) != got.map(Value::from).as_ref() {
                return Err(format!("{where_}: expected exit code {code}, got {got:?}"));
            }
        } else if step.get("comment").is_none() {
            return Err(format!("{where_}: unknown step {step}"));
        }
        Ok(())
    }

    /// Ends the sidecar and checks every message no `expect` consumed: all are validated, and none
    /// may be a response (every response must be expected).
    fn finish(&mut self, name: &str) {
        self.sidecar.close_stdin();
        self.sidecar.wait_exit();
        for message in self.sidecar.drain_after_exit() {
            let where_ = format!("{name} (unexpected message)");
            if message.get("id").is_some() && message.get("method").is_none() {
                self.problems
                    .push(format!("{where_}: a response no expect matched: {message}"));
            }
            self.check_received(&where_, &message);
        }
    }
}

fn replay(path: &Path, schemas: &Schemas, fixture: &str) -> Result<(), String> {
    let name = file_name(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("read {name}: {e}"))?;
    let mut steps = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let step: Value =
            serde_json::from_str(line).map_err(|e| format!("{name}:{}: not JSON: {e}", i + 1))?;
        steps.push((format!("{name}:{}", i + 1), step));
    }
    let args: Vec<String> = match steps.first().and_then(|(_, s)| s.get("args")) {
        Some(args) => {
            serde_json::from_value(args.clone()).map_err(|e| format!("{name}: bad args: {e}"))?
        }
        None => Vec::new(),
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut replay = Replay {
        schemas,
        sidecar: Sidecar::spawn_with(&args, &[]),
        fixture: fixture.to_owned(),
        methods: HashMap::new(),
        asked: HashMap::new(),
        problems: Vec::new(),
        captured: HashMap::new(),
    };
    for (where_, step) in steps.iter().filter(|(_, s)| s.get("args").is_none()) {
        replay.step(where_, step)?;
    }
    replay.finish(&name);
    if replay.problems.is_empty() {
        Ok(())
    } else {
        Err(replay.problems.join("\n"))
    }
}

#[test]
fn transcripts_replay_and_match_the_schemas() {
    let schemas = Arc::new(Schemas::load());
    let fixture = fixture_bin()
        .to_str()
        .expect("UTF-8 fixture path")
        .to_owned();
    let paths = files(&proto_dir().join("transcripts"), ".jsonl");
    assert!(!paths.is_empty(), "no transcripts in proto/transcripts");
    // Each transcript drives its own sidecar, so they run in parallel.
    let runs: Vec<_> = paths
        .into_iter()
        .map(|path| {
            let (schemas, fixture, name) =
                (Arc::clone(&schemas), fixture.clone(), file_name(&path));
            (
                std::thread::spawn(move || replay(&path, &schemas, &fixture)),
                name,
            )
        })
        .collect();
    let failures: Vec<String> = runs
        .into_iter()
        .filter_map(|(run, name)| match run.join() {
            Ok(Ok(())) => None,
            Ok(Err(report)) => Some(report),
            Err(panic) => Some(format!("{name}: panicked: {}", panic_text(panic.as_ref()))),
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} transcript(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn transcripts_pin_every_error_code_in_protocol_md_and_error_json() {
    let doc =
        std::fs::read_to_string(proto_dir().join("PROTOCOL.md")).expect("read proto/PROTOCOL.md");
    let schema = read_json(&proto_dir().join("schema/error.json"));
    let object = &schema["$defs"]["errorObject"];
    let listed: Vec<&str> = object["properties"]["data"]["properties"]["code"]["enum"]
        .as_array()
        .expect("error.json: $defs/errorObject/properties/data/properties/code/enum")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let pairs: Vec<(i64, &str)> = object["anyOf"]
        .as_array()
        .expect("error.json: $defs/errorObject/anyOf")
        .iter()
        .filter_map(|p| {
            Some((
                p["properties"]["code"]["const"].as_i64()?,
                p["properties"]["data"]["properties"]["code"]["const"].as_str()?,
            ))
        })
        .collect();
    for code in ErrorCode::ALL {
        let (text, number) = (code.as_str(), code.rpc_code());
        let row = format!("`{text}`");
        assert!(
            doc.lines()
                .any(|l| l.starts_with('|') && l.contains(&row) && l.contains(&number.to_string())),
            "proto/PROTOCOL.md has no table row naming {row} with {number}"
        );
        assert!(listed.contains(&text), "error.json's enum lacks {text}");
        assert!(
            pairs.contains(&(number, text)),
            "error.json's anyOf lacks {text} = {number}"
        );
    }
    let all = ErrorCode::ALL.len();
    assert!(
        listed.len() == all && pairs.len() == all,
        "error.json has codes the sidecar does not have: {listed:?} {pairs:?}"
    );
}
