//! The written map stays true to the code: every test ARCHITECTURE.md's rules name exists, and
//! every folder's `mod.rs` lists the files and folders it holds. Both read the tree as text, like
//! `architecture`, so a rename that forgets the map fails here rather than in a reader's head.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file's text under `dir`.
fn rust_sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && name != "target" && !name.starts_with('.') {
                stack.push(path);
            } else if name.ends_with(".rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path, text));
            }
        }
    }
    found
}

/// The backticked names after "Test:" / "Tests:" in each numbered rule, up to the sentence's end
/// (a `;` or a `.` followed by a space ends the list). `a::{b,c}` stands for `a::b` and `a::c`.
fn tests_named_by_the_rules(map: &str) -> Vec<String> {
    let rules = map
        .split("## Rules that hold everywhere")
        .nth(1)
        .expect("ARCHITECTURE.md has its rules section");
    let text = rules.replace('\n', " ");
    let mut names = Vec::new();
    for marker in ["Test: ", "Tests: "] {
        let mut rest = text.as_str();
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let end = sentence_end(rest);
            let list = &rest[..end];
            for (i, chunk) in list.split('`').enumerate() {
                if i % 2 == 1 {
                    names.extend(expand(chunk));
                }
            }
        }
    }
    names
}

fn sentence_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut in_code = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'`' => in_code = !in_code,
            b';' if !in_code => return i,
            b'.' if !in_code && bytes.get(i + 1).is_none_or(|n| *n == b' ') => return i,
            _ => {}
        }
    }
    text.len()
}

fn expand(name: &str) -> Vec<String> {
    match (name.find('{'), name.find('}')) {
        (Some(open), Some(close)) => name[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{}{}", &name[..open], alt.trim(), &name[close + 1..]))
            .collect(),
        _ => vec![name.to_string()],
    }
}

#[test]
fn every_test_the_map_names_exists() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let named = tests_named_by_the_rules(&map);
    assert!(
        named.len() >= 20,
        "the rules name only {} tests: {named:?}",
        named.len()
    );
    let mut sources = rust_sources(&root().join("tests"));
    sources.extend(rust_sources(&root().join("src")));
    let functions: BTreeSet<String> = sources
        .iter()
        .flat_map(|(_, text)| text.lines())
        .filter_map(|line| {
            let at = line.find("fn ")?;
            let name: String = line[at + 3..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect();
    let suite = std::fs::read_to_string(root().join("tests/integration/main.rs")).unwrap();
    let fuzz_targets = root().join("tests/fuzz/fuzz_targets");
    let mut missing = Vec::new();
    for name in &named {
        // A file or folder of src/ stands for its unit tests; other spellings (a type, a
        // conformance scenario) are not test names.
        if name.ends_with(".rs") || name.ends_with('/') {
            if !root().join("src").join(name).exists() {
                missing.push(name.clone());
            }
            continue;
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':')
        {
            continue;
        }
        let last = name.rsplit("::").next().unwrap_or(name);
        let as_module = !name.contains("::")
            && (suite.contains(&format!("mod {name};"))
                || fuzz_targets.join(format!("{name}.rs")).is_file());
        let as_module_path = name.contains("::")
            && suite.contains(&format!("mod {};", name.split("::").next().unwrap_or("")))
            && (functions.contains(last) || suite.contains(&format!("mod {last};")));
        if !(as_module || as_module_path || functions.contains(last)) {
            missing.push(name.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names tests that do not exist: {missing:?}"
    );
}

#[test]
fn a_renamed_test_would_be_caught() {
    let map = "## Rules that hold everywhere\n1. **x**. Tests: `calls`, `no_such_test_anywhere`; figures from `mcp-bench soak`.\n";
    assert_eq!(
        tests_named_by_the_rules(map),
        ["calls", "no_such_test_anywhere"]
    );
}

/// The names a folder holds: its `.rs` files but `mod.rs` (by stem) and its subfolders that are
/// modules (they hold a `mod.rs`, or a sibling `name.rs` declares them).
fn children(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if path.join("mod.rs").is_file() {
                names.push(name);
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "mod" {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names
}

/// The `//!` lines at the top of a file, joined.
fn module_doc(text: &str) -> String {
    text.lines()
        .take_while(|line| line.starts_with("//!") || line.trim().is_empty())
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_folder_lists_what_it_holds() {
    let mut unlisted = Vec::new();
    let mut folders = 0;
    for (path, text) in rust_sources(&root().join("src")) {
        if path.file_name().is_none_or(|n| n != "mod.rs") {
            continue;
        }
        folders += 1;
        let doc = module_doc(&text);
        let dir = path.parent().unwrap();
        for child in children(dir) {
            let listed = [
                format!("`{child}`"),
                format!("`{child}.rs`"),
                format!("`{child}/`"),
            ]
            .iter()
            .any(|form| doc.contains(form.as_str()));
            if !listed {
                let folder = dir.strip_prefix(root()).unwrap().display().to_string();
                unlisted.push(format!("{folder}: {child}"));
            }
        }
    }
    assert!(
        folders > 20,
        "only {folders} folders with a mod.rs were found"
    );
    assert!(
        unlisted.is_empty(),
        "a folder's mod.rs doc does not list (as `name`, `name.rs` or `name/`): {unlisted:#?}"
    );
}
