//! The cached listings against the uncached path, over the library: on random tool sets (fixed
//! seeds, bounded sizes) and random changes of them, every listing's fingerprint and entries equal
//! what converting every definition afresh gives; unchanged tools keep their renderings across a
//! rebuild and changed ones do not; and the deferred listings' provider shapes per format are
//! pinned in golden files (`tests/data/golden/defer/`, `BLESS=1` rewrites them).

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::support::{
    self,
    random::{self, Rng},
};
use mcp_sidecar::convert::{self, NameTemplate, Options, ToolFormat};
use mcp_sidecar::mcp::{validate_tools, ToolDef};
use mcp_sidecar::store::{Catalog, DeferRule, ListingRequest, ServerInfo, ServerTools};

const VARIANTS: [(ToolFormat, bool); 7] = [
    (ToolFormat::Openai, false),
    (ToolFormat::Openai, true),
    (ToolFormat::OpenaiResponses, false),
    (ToolFormat::OpenaiResponses, true),
    (ToolFormat::Anthropic, false),
    (ToolFormat::Gemini, false),
    (ToolFormat::Mcp, false),
];

/// A random valid tool (random schemas that fail validation, or that refer outside themselves and
/// are left out, are drawn again).
fn valid_tool(rng: &mut Rng, name: String) -> ToolDef {
    loop {
        let mut tool = random::tool(rng);
        tool["name"] = Value::from(name.clone());
        match validate_tools("s", vec![tool]) {
            Ok(mut valid) if !valid.is_empty() => return valid.remove(0),
            _ => {}
        }
    }
}

/// Up to 4 servers of up to 12 tools each, names drawn from a small pool so that collisions (and
/// their hashed names) happen.
fn random_set(rng: &mut Rng) -> Vec<ServerTools> {
    const NAMES: [&str; 8] = ["a", "b", "get", "get-x", "x.y", "t_1", "Tool", "a"];
    (0..1 + rng.below(4))
        .map(|i| {
            let mut seen = BTreeSet::new();
            let tools: Vec<ToolDef> = (0..rng.below(13))
                .filter_map(|_| {
                    let name = format!("{}{}", rng.pick(&NAMES), rng.below(3));
                    seen.insert(name.clone()).then(|| valid_tool(rng, name))
                })
                .collect();
            ServerTools {
                name: ["s", "s_", "srv", "s-2"][i].into(),
                tools: Arc::new(tools),
                info: ServerInfo::default(),
            }
        })
        .collect()
}

/// `servers` with some tools dropped, some changed (same name, new definition), some added.
fn changed(rng: &mut Rng, servers: &[ServerTools]) -> Vec<ServerTools> {
    let mut out = Vec::new();
    for s in servers {
        if rng.chance(15) {
            continue;
        }
        let mut tools: Vec<ToolDef> = Vec::new();
        for t in s.tools.iter() {
            if rng.chance(20) {
                continue;
            }
            tools.push(if rng.chance(20) {
                valid_tool(rng, t.name.to_string())
            } else {
                t.clone()
            });
        }
        if rng.chance(30) {
            let name = format!("new{}", rng.below(1000));
            if tools.iter().all(|t| t.name != name) {
                tools.push(valid_tool(rng, name));
            }
        }
        out.push(ServerTools {
            name: s.name.clone(),
            tools: Arc::new(tools),
            info: ServerInfo::default(),
        });
    }
    out
}

/// The uncached path: every tool of `servers` (the input, not the catalog's copy) converted
/// afresh under its exposed name, in listing order.
fn fresh(
    servers: &[ServerTools],
    catalog: &Catalog,
    format: ToolFormat,
    strict: bool,
) -> (Vec<Value>, String) {
    let mut names: Vec<&str> = catalog.names().collect();
    names.sort_unstable();
    assert_eq!(
        names.len(),
        servers.iter().map(|s| s.tools.len()).sum::<usize>()
    );
    let mut definitions = Vec::new();
    let mut notes = Vec::new();
    for name in names {
        let entry = catalog.get(name).unwrap();
        let server = servers.iter().find(|s| s.name == entry.server).unwrap();
        let tool = server
            .tools
            .iter()
            .find(|t| t.name == entry.tool.name)
            .unwrap();
        let c = convert::definition(format, Options { strict }, name, &tool.raw);
        notes.push(json!(c.notes));
        definitions.push(c.definition);
    }
    let fingerprint = convert::fingerprint(&definitions);
    (
        definitions
            .into_iter()
            .zip(notes)
            .map(|(d, n)| json!([d, n]))
            .collect(),
        fingerprint,
    )
}

/// The cached listing's (definition, notes) pairs and fingerprint.
fn cached(catalog: &Catalog, format: ToolFormat, strict: bool) -> (Vec<Value>, String) {
    let listing = catalog.listing(format, Options { strict }, None);
    let pairs = listing
        .tools
        .iter()
        .map(|t| json!([t["definition"], t["conversionNotes"]]))
        .collect();
    (pairs, listing.fingerprint)
}

#[test]
fn cached_listings_equal_the_uncached_path_on_random_sets_and_changes() {
    let template = NameTemplate::default();
    for seed in 0..60 {
        let mut rng = Rng::new(0xca7a_1000 + seed);
        let mut servers = random_set(&mut rng);
        let mut catalog = Catalog::build(&template, DeferRule::default(), &servers, None);
        for round in 0..4 {
            for (format, strict) in VARIANTS {
                // Twice: the second answer comes from the cache.
                for _ in 0..2 {
                    assert_eq!(
                        cached(&catalog, format, strict),
                        fresh(&servers, &catalog, format, strict),
                        "seed {seed} round {round} {format} strict={strict}"
                    );
                }
                assert_eq!(
                    catalog.fingerprint(format, Options { strict }),
                    fresh(&servers, &catalog, format, strict).1
                );
            }
            servers = changed(&mut rng, &servers);
            catalog = Catalog::build(&template, DeferRule::default(), &servers, Some(&catalog));
        }
    }
}

#[test]
fn unchanged_tools_keep_their_renderings_across_rebuilds() {
    let template = NameTemplate::default();
    let mut rng = Rng::new(7);
    let tools = |names: &[&str], rng: &mut Rng| -> Arc<Vec<ToolDef>> {
        Arc::new(
            names
                .iter()
                .map(|n| valid_tool(rng, (*n).to_owned()))
                .collect(),
        )
    };
    let a = ServerTools {
        name: "a".into(),
        tools: tools(&["one", "two"], &mut rng),
        info: ServerInfo::default(),
    };
    let first = Catalog::build(&template, DeferRule::default(), &[a], None);
    let rendered = |c: &Catalog, name: &str| -> usize {
        let (found, _) = c.search(name, 1, None, ToolFormat::Openai, Options::default());
        found[0].json.as_ptr() as usize
    };
    let (one, two) = (rendered(&first, "one"), rendered(&first, "two"));
    // `two` changes, `one` does not, another server comes.
    let kept = first.get("mcp__a__one").unwrap().tool.clone();
    let next_servers = [
        ServerTools {
            name: "a".into(),
            tools: Arc::new(vec![kept, valid_tool(&mut rng, "two".into())]),
            info: ServerInfo::default(),
        },
        ServerTools {
            name: "b".into(),
            tools: tools(&["three"], &mut rng),
            info: ServerInfo::default(),
        },
    ];
    let next = Catalog::build(&template, DeferRule::default(), &next_servers, Some(&first));
    assert_eq!(
        rendered(&next, "one"),
        one,
        "an unchanged tool is not rendered again"
    );
    assert_ne!(
        rendered(&next, "two"),
        two,
        "a changed tool is rendered again"
    );
    // The whole answer is kept per catalog: the same Arc until the set changes.
    let request = ListingRequest {
        format: ToolFormat::Gemini,
        options: Options::default(),
        defer: None,
        servers: None,
    };
    assert!(Arc::ptr_eq(&next.answer(&request), &next.answer(&request)));
    assert!(!Arc::ptr_eq(
        &first.answer(&request),
        &next.answer(&request)
    ));
}

/// One server per saved schema file; the first two with instructions, the last never deferred.
fn schema_servers() -> Vec<ServerTools> {
    let files = support::schema_files();
    let count = files.len();
    files
        .into_iter()
        .enumerate()
        .map(|(i, (stem, tools))| ServerTools {
            tools: Arc::new(validate_tools(&stem, tools).unwrap()),
            info: ServerInfo {
                defer: (i + 1 == count).then_some(false),
                instructions: (i < 2).then(|| format!("Use the {stem} tools for {stem} work.")),
                withheld: Vec::new(),
            },
            name: stem.into(),
        })
        .collect()
}

#[test]
fn golden_deferred_listings() {
    let bless = std::env::var_os("BLESS").is_some();
    let catalog = Catalog::build(
        &NameTemplate::default(),
        DeferRule {
            all: true,
            above_tokens: None,
        },
        &schema_servers(),
        None,
    );
    let mut mismatches = Vec::new();
    for (format, strict) in VARIANTS {
        let rendered = catalog.answer(&ListingRequest {
            format,
            options: Options { strict },
            defer: None,
            servers: None,
        });
        let answer: Value = serde_json::from_str(&rendered.json).unwrap();
        let deferred: Vec<&Value> = answer["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["deferred"] == true)
            .map(|t| &t["name"])
            .collect();
        let golden = json!({
            "fingerprint": answer["fingerprint"],
            "tokens": answer["tokens"],
            "deferred": deferred,
            "providerTools": answer["providerTools"],
        });
        let actual = format!("{}\n", serde_json::to_string_pretty(&golden).unwrap());
        let variant = if strict {
            format!("{format}-strict")
        } else {
            format.to_string()
        };
        let path = support::data_path(&format!("golden/defer/{variant}.json"));
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        if std::fs::read_to_string(&path).unwrap_or_default() != actual {
            mismatches.push(format!(
                "{} (BLESS=1 shows the new output as a diff)",
                path.display()
            ));
        }
        // Whatever the golden says, the rules hold.
        let provider = answer["providerTools"].as_array().unwrap();
        let texts: Vec<String> = provider.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            answer["fingerprint"],
            convert::fingerprint_canonical(texts.iter().map(String::as_str))
        );
        for tool in answer["tools"].as_array().unwrap() {
            let marked = tool["definition"].get("defer_loading") == Some(&json!(true));
            let native = matches!(format, ToolFormat::OpenaiResponses | ToolFormat::Anthropic);
            assert_eq!(
                marked,
                native && tool["deferred"] == true,
                "{format}: {tool}"
            );
            if format != ToolFormat::Mcp && tool["deferred"] != true {
                let errors = support::provider_rules::check(format.as_str(), &tool["definition"]);
                assert!(errors.is_empty(), "{format}: {errors:?}");
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden files differ:\n{}",
        mismatches.join("\n")
    );
}
