//! The house's shape, checked from the source (ARCHITECTURE.md states it; this test keeps it true):
//! - layers: a top-level module of `src/` imports only modules on a lower floor of [`FLOORS`];
//! - no circles: no files of `src/` import each other, directly or round a loop of any length
//!   (`a → b → c → a`), found as the import graph's strongly connected components;
//! - one spawn site and one stdout writer are clippy's job (`clippy.toml`, workspace lints).
//!
//! Imports are read as text: `crate::a::b`, `super::a`, `self::a` and a child module's name used
//! in a `use`, each resolved to the file that defines the longest matching module path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The floors, bottom first. A module may import modules of lower floors only (never its own
/// floor's neighbours, never upwards). `main.rs` stands above all of them.
const FLOORS: &[&[&str]] = &[
    &[
        "limits",
        "error",
        "logging",
        "time",
        "canonical",
        "era",
        "names",
    ],
    &[
        "jsonrpc",
        "convert",
        "ask",
        "search",
        "sandbox",
        "metrics",
        "telemetry",
    ],
    &["config"],
    &["trust", "oauth"],
    &["mcp", "process"],
    &["store", "package"],
    &["supervisor", "signals", "serving"],
    &["host", "aggregate"],
    &["cli"],
];

/// A file of `src/` and the module path it defines (`src/a/b.rs` and `src/a/b/mod.rs` are `a::b`).
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

fn source_files() -> Vec<SourceFile> {
    source_files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// The `.rs` files under `src` (the crate's own, or a scratch tree a test builds).
fn source_files_in(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap();
                let mut module: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let last = module.last().cloned().unwrap_or_default();
                if matches!(last.as_str(), "mod" | "lib" | "main") {
                    module.pop();
                }
                let code =
                    without_test_module(&strip_comments(&std::fs::read_to_string(&path).unwrap()));
                files.push(SourceFile {
                    path: rel.to_path_buf(),
                    module,
                    code,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Drops an inline `#[cfg(test)] mod …` (or `#[cfg(all(test, …))]`) and what follows it: there,
/// `super` is the file itself.
fn without_test_module(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let opens_test_module = |i: usize| {
        let attribute = lines[i].trim();
        (attribute == "#[cfg(test)]" || attribute.starts_with("#[cfg(all(test,"))
            && lines[i + 1..]
                .iter()
                .take(3)
                .any(|l| l.trim_start().starts_with("mod ") && l.trim_end().ends_with('{'))
    };
    let end = (0..lines.len())
        .find(|&i| opens_test_module(i))
        .unwrap_or(lines.len());
    lines[..end].join("\n")
}

/// Drops `//` comments (doc comments included), keeping `//` inside string literals such as URLs.
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| {
            let mut in_string = false;
            let bytes = line.as_bytes();
            for i in 0..bytes.len() {
                match bytes[i] {
                    b'"' if i == 0 || bytes[i - 1] != b'\\' => in_string = !in_string,
                    b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
                    _ => {}
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path `file` names: `crate::…`, `super::…`, `self::…`, and `use child::…` for a
/// child module it declares. Brace groups (`use super::{a, b::c}`) are expanded one level.
fn referenced_paths(file: &SourceFile) -> Vec<Vec<String>> {
    // `src/a/b.rs` and `src/a/b/mod.rs` both define module `a::b`: `super` is `a`, `self` is `a::b`.
    let here: Vec<String> = file.module.clone();
    let parent: Vec<String> = here[..here.len().saturating_sub(1)].to_vec();
    let children: BTreeSet<String> = file
        .code
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("pub ").unwrap_or(l);
            let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
            rest.strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
                .map(str::to_owned)
        })
        .collect();
    let code = &file.code;
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if i > 0 && (is_ident(bytes[i - 1]) || bytes[i - 1] == b':') || !is_ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let head = &code[start..i];
        if !code[i..].starts_with("::") {
            continue;
        }
        let base: Vec<String> = match head {
            "crate" => Vec::new(),
            "super" => parent.clone(),
            "self" => here.clone(),
            child if children.contains(child) => {
                let mut b = here.clone();
                b.push(child.to_owned());
                b
            }
            _ => continue,
        };
        // Read `::a::b::{c, d::e}` after the head.
        let mut path = base;
        let mut j = i;
        loop {
            if !code[j..].starts_with("::") {
                break;
            }
            j += 2;
            if code[j..].starts_with('{') {
                let end = code[j..].find('}').map_or(code.len(), |e| j + e);
                for item in code[j + 1..end].split(',') {
                    let mut p = path.clone();
                    p.extend(
                        item.trim()
                            .split("::")
                            .map(|s| s.trim().to_owned())
                            .filter(|s| !s.is_empty() && s.bytes().all(is_ident)),
                    );
                    out.push(p);
                }
                j = end;
                path.clear();
                break;
            }
            let seg_start = j;
            while j < bytes.len() && is_ident(bytes[j]) {
                j += 1;
            }
            if seg_start == j {
                break;
            }
            path.push(code[seg_start..j].to_owned());
        }
        if !path.is_empty() {
            out.push(path);
        }
        i = j;
    }
    out
}

/// The file defining the longest prefix of `path` that names a module.
fn resolve<'a>(
    path: &[String],
    by_module: &BTreeMap<Vec<String>, &'a SourceFile>,
) -> Option<&'a SourceFile> {
    (1..=path.len())
        .rev()
        .find_map(|n| by_module.get(&path[..n]).copied())
}

/// file -> the other files it imports.
fn import_graph(files: &[SourceFile]) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let by_module: BTreeMap<Vec<String>, &SourceFile> = files
        .iter()
        .filter(|f| !f.module.is_empty())
        .map(|f| (f.module.clone(), f))
        .collect();
    files
        .iter()
        .map(|f| {
            let targets = referenced_paths(f)
                .iter()
                .filter_map(|p| resolve(p, &by_module))
                .filter(|g| g.path != f.path)
                .map(|g| g.path.clone())
                .collect();
            (f.path.clone(), targets)
        })
        .collect()
}

fn floor_of(top: &str) -> Option<usize> {
    FLOORS.iter().position(|floor| floor.contains(&top))
}

/// Every import loop of `graph`, each written as its files in import order back to the first
/// (`a -> b -> c -> a`). A loop is one strongly connected component of more than one file
/// (Tarjan's algorithm); it is shown as the shortest loop through its first file, followed by
/// the component's other files when that loop does not pass through all of them.
fn import_loops(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<String> {
    strongly_connected(graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let members: BTreeSet<&PathBuf> = component.iter().collect();
            let first = *members.first().unwrap();
            let walk = shortest_loop(graph, first, &members);
            let mut line = walk
                .iter()
                .chain([first])
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" -> ");
            let off_loop: Vec<String> = members
                .iter()
                .filter(|m| !walk.contains(m))
                .map(|m| m.display().to_string())
                .collect();
            if !off_loop.is_empty() {
                line.push_str(&format!(" (same loop: {})", off_loop.join(", ")));
            }
            line
        })
        .collect()
}

/// Tarjan's strongly connected components of `graph`, iterative so a deep import chain cannot
/// overflow the test thread's stack. Edges to files outside `graph`'s keys are ignored.
fn strongly_connected(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let nodes: Vec<&PathBuf> = graph.keys().collect();
    let index_of: BTreeMap<&PathBuf, usize> =
        nodes.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|p| {
            graph[*p]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let mut order = vec![usize::MAX; nodes.len()];
    let mut low = vec![0; nodes.len()];
    let mut on_stack = vec![false; nodes.len()];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0;
    for root in 0..nodes.len() {
        if order[root] != usize::MAX {
            continue;
        }
        // (node, how many of its edges are already followed)
        let mut walk = vec![(root, 0)];
        order[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut followed)) = walk.last_mut() {
            if let Some(&w) = edges[v].get(*followed) {
                *followed += 1;
                if order[w] == usize::MAX {
                    order[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    walk.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            walk.pop();
            if let Some(&(parent, _)) = walk.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().unwrap();
                    on_stack[w] = false;
                    component.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                components.push(component);
            }
        }
    }
    components
}

/// The files of the shortest path from `start` back to itself inside `members` (breadth first),
/// `start` first.
fn shortest_loop(
    graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    start: &PathBuf,
    members: &BTreeSet<&PathBuf>,
) -> Vec<PathBuf> {
    let mut came_from: BTreeMap<&PathBuf, &PathBuf> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph[v].iter().filter(|w| members.contains(w)) {
            if w == start {
                let mut path = vec![v.clone()];
                let mut at = v;
                while at != start {
                    at = came_from[at];
                    path.push(at.clone());
                }
                path.reverse();
                return path;
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("{} is in a strongly connected component", start.display())
}

#[test]
fn no_files_import_each_other_round_a_loop() {
    let loops = import_loops(&import_graph(&source_files()));
    assert!(
        loops.is_empty(),
        "files that import each other round a loop:\n{}",
        loops.join("\n")
    );
}

/// A scratch `src/` of `files` (path, code) in a fresh directory, removed when dropped.
struct ScratchSrc(PathBuf);

impl ScratchSrc {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("architecture-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, code) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, code).unwrap();
        }
        Self(dir)
    }

    fn loops(&self) -> Vec<String> {
        import_loops(&import_graph(&source_files_in(&self.0)))
    }
}

impl Drop for ScratchSrc {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_loop_of_three_files_is_reported_in_order() {
    let src = ScratchSrc::new(
        "three-loop",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            ("a.rs", "use crate::b::Bee;\npub struct Ay;\n"),
            ("b.rs", "use crate::c::Sea;\npub struct Bee;\n"),
            ("c.rs", "use crate::a::Ay;\npub struct Sea;\n"),
            // Imports into the loop without being part of it.
            ("d.rs", "use crate::a::Ay;\n"),
        ],
    );
    assert_eq!(src.loops(), ["a.rs -> b.rs -> c.rs -> a.rs"]);
}

#[test]
fn every_loop_is_reported_with_the_files_beside_its_shortest_path() {
    let src = ScratchSrc::new(
        "two-loops",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\nmod x;\nmod y;\n"),
            ("a.rs", "use crate::b::Bee;\n"),
            ("b.rs", "use crate::{a::Ay, c::Sea};\n"),
            ("c.rs", "use crate::a::Ay;\n"),
            ("x/mod.rs", "mod y;\n"),
            ("x/y.rs", "use super::z::Zed;\n"),
            ("x/z.rs", "use crate::x::y::Why;\n"),
        ],
    );
    assert_eq!(
        src.loops(),
        [
            "a.rs -> b.rs -> a.rs (same loop: c.rs)",
            "x/y.rs -> x/z.rs -> x/y.rs",
        ]
    );
}

#[test]
fn a_tree_without_a_loop_passes() {
    let src = ScratchSrc::new(
        "no-loop",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("a.rs", "use crate::b::Bee;\nuse crate::c::Sea;\n"),
            ("b.rs", "use crate::c::Sea;\npub struct Bee;\n"),
            // A test module's `super` is its own file, whatever its `cfg` adds.
            (
                "c.rs",
                "pub struct Sea;\n#[cfg(all(test, unix))]\nmod tests {\n    use crate::a::*;\n}\n",
            ),
        ],
    );
    let graph = import_graph(&source_files_in(&src.0));
    // The reader saw the imports, so an empty answer means no loop rather than nothing read.
    assert_eq!(graph.values().map(BTreeSet::len).sum::<usize>(), 3);
    assert!(src.loops().is_empty(), "{:?}", src.loops());
}

#[test]
fn modules_import_only_lower_floors() {
    let files = source_files();
    let graph = import_graph(&files);
    let top_of = |p: &Path| -> String {
        let first = p.components().next().unwrap().as_os_str().to_string_lossy();
        first.trim_end_matches(".rs").to_owned()
    };
    let mut unknown = BTreeSet::new();
    let mut upward = BTreeSet::new();
    for (from, targets) in &graph {
        let from_top = top_of(from);
        if matches!(from_top.as_str(), "lib" | "main") {
            continue;
        }
        let Some(from_floor) = floor_of(&from_top) else {
            unknown.insert(from_top);
            continue;
        };
        for to in targets {
            let to_top = top_of(to);
            if to_top == from_top || to_top == "lib" {
                continue;
            }
            match floor_of(&to_top) {
                Some(to_floor) if to_floor < from_floor => {}
                Some(_) => {
                    upward.insert(format!(
                        "{} ({from_top}) -> {} ({to_top})",
                        from.display(),
                        to.display()
                    ));
                }
                None => {
                    unknown.insert(to_top);
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "modules missing from FLOORS (and from ARCHITECTURE.md): {unknown:?}"
    );
    assert!(
        upward.is_empty(),
        "imports that do not go down a floor:\n{}",
        upward.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_reader_sees_the_imports_it_checks() {
    // Guard against a parser that silently sees nothing (and so passes everything).
    let graph = import_graph(&source_files());
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(edges > 100, "only {edges} imports found in src/");
    let host_imports = graph
        .iter()
        .filter(|(from, _)| from.starts_with("host"))
        .flat_map(|(_, to)| to)
        .any(|to| to.starts_with("supervisor"));
    assert!(host_imports, "host's use of supervisor was not seen");
}

/// The files `from` (a path prefix inside `src/`) imports that start with `to`.
fn imports_between(from: &str, to: &str) -> Vec<String> {
    import_graph(&source_files())
        .iter()
        .filter(|(file, _)| file.starts_with(from))
        .flat_map(|(file, targets)| {
            targets
                .iter()
                .filter(|t| t.starts_with(to))
                .map(move |t| format!("{} -> {}", file.display(), t.display()))
        })
        .collect()
}

#[test]
fn the_mcp_layer_and_the_host_layer_never_meet() {
    let mut crossings = imports_between("host", "mcp");
    crossings.extend(imports_between("mcp", "host"));
    crossings.extend(imports_between("jsonrpc", "mcp"));
    crossings.extend(imports_between("jsonrpc", "host"));
    assert!(crossings.is_empty(), "{crossings:#?}");
}

#[test]
fn an_mcp_session_sees_only_the_transport_trait() {
    let mut seen = imports_between("mcp", "process");
    for session_file in [
        "mcp/client/",
        "mcp/handshake.rs",
        "mcp/reader.rs",
        "mcp/tools.rs",
    ] {
        seen.extend(
            imports_between(session_file, "mcp/transport")
                .into_iter()
                .filter(|edge| !edge.ends_with("mcp/transport/mod.rs")),
        );
    }
    assert!(
        seen.is_empty(),
        "the MCP session reaches below its Transport trait: {seen:#?}"
    );
}
