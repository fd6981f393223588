//! A tiny deterministic pseudo-random generator (splitmix64) and generators of JSON that looks
//! like JSON Schema, names, and text, with bounded sizes. No dependency, same cases every run.

use serde_json::{json, Map, Value};

pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(crate) fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const KEYWORDS: &[&str] = &[
    "type",
    "type",
    "type",
    "properties",
    "properties",
    "items",
    "items",
    "required",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "$ref",
    "$defs",
    "definitions",
    "enum",
    "const",
    "additionalProperties",
    "patternProperties",
    "format",
    "nullable",
    "description",
    "title",
    "default",
    "examples",
    "minimum",
    "maximum",
    "minLength",
    "maxItems",
    "prefixItems",
    "not",
    "$schema",
    "$id",
    "$comment",
    "if",
    "then",
    "uniqueItems",
    "propertyOrdering",
];
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null", "STRING", "date", "",
];
const REFS: &[&str] = &[
    "#",
    "#/$defs/a",
    "#/$defs/b",
    "#/definitions/c",
    "#/properties/p0",
    "#/$defs/a/properties/p1",
    "#/$defs/missing",
    "https://example.com/x.json",
    "other.json#/a",
    "#anchor",
    "#/$defs/a%20b",
    "#/items",
];
const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "uri",
    "email",
    "int64",
    "float",
    "enum",
    "uuid",
    "hostname",
];

/// Arbitrary JSON, `depth` levels at most.
pub(crate) fn json_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => json!(rng.next() % 1000),
        3 => json!((rng.next() % 1000) as f64 / 7.0 - 50.0),
        4 => Value::String(text(rng, 8)),
        5 => Value::Array(
            (0..rng.below(4))
                .map(|_| json_value(rng, depth - 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(text(rng, 6), json_value(rng, depth - 1));
            }
            Value::Object(map)
        }
    }
}

/// JSON biased towards JSON Schema: schema keywords with plausible (and implausible) values,
/// references that cycle, unions, tuples, garbage where a schema should be.
pub(crate) fn schema(rng: &mut Rng, depth: usize) -> Value {
    if depth == 0 || rng.chance(10) {
        return match rng.below(6) {
            0 => json!({"type": *rng.pick(TYPES)}),
            1 => json!({"$ref": *rng.pick(REFS)}),
            2 => json!({}),
            3 => Value::Bool(rng.chance(50)),
            4 => json_value(rng, 1),
            _ => json!({"type": "string", "enum": ["a", "b"]}),
        };
    }
    let mut map = Map::new();
    for _ in 0..1 + rng.below(5) {
        let key = *rng.pick(KEYWORDS);
        let value = match key {
            "type" => {
                if rng.chance(25) {
                    Value::Array(
                        (0..1 + rng.below(3))
                            .map(|_| Value::from(*rng.pick(TYPES)))
                            .collect(),
                    )
                } else {
                    Value::from(*rng.pick(TYPES))
                }
            }
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                let mut props = Map::new();
                let names = ["p0", "p1", "a", "b", "c", "a b", "$ref"];
                for _ in 0..rng.below(4) {
                    props.insert((*rng.pick(&names)).to_string(), schema(rng, depth - 1));
                }
                if rng.chance(5) {
                    json_value(rng, 1)
                } else {
                    Value::Object(props)
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" => {
                if key == "items" && rng.chance(15) {
                    Value::Array((0..rng.below(3)).map(|_| schema(rng, depth - 1)).collect())
                } else {
                    schema(rng, depth - 1)
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if rng.chance(5) {
                    json_value(rng, 1)
                } else {
                    Value::Array((0..rng.below(4)).map(|_| schema(rng, depth - 1)).collect())
                }
            }
            "required" => Value::Array(
                (0..rng.below(4))
                    .map(|_| Value::from(*rng.pick(&["p0", "p1", "a", "zz"])))
                    .collect(),
            ),
            "$ref" => Value::from(*rng.pick(REFS)),
            "enum" => Value::Array((0..rng.below(4)).map(|_| json_value(rng, 1)).collect()),
            "format" => Value::from(*rng.pick(FORMATS)),
            "examples" => Value::Array(vec![json_value(rng, 1)]),
            _ => json_value(rng, 1),
        };
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

/// An MCP tool object around a random schema; the top level is usually an object schema.
pub(crate) fn tool(rng: &mut Rng) -> Value {
    let mut input = schema(rng, 5);
    if rng.chance(80) {
        if let Value::Object(map) = &mut input {
            map.insert("type".into(), Value::from("object"));
        }
    }
    json!({"name": text(rng, 10), "description": text(rng, 20), "inputSchema": input})
}

/// Short text mixing ASCII, digits, punctuation, spaces, non-ASCII and control characters.
pub(crate) fn text(rng: &mut Rng, max: usize) -> String {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "Z",
        "_",
        "-",
        ".",
        "/",
        " ",
        "1",
        "9",
        "é",
        "ü",
        "中",
        "😀",
        "\u{1b}[31m",
        "\n",
        ":",
        "\0",
        "x",
        "tool",
        "server",
        "$",
    ];
    (0..rng.below(max + 1)).map(|_| *rng.pick(PIECES)).collect()
}
