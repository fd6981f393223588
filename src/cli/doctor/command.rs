//! Where a stdio server's program is, looked up as its spawn looks it up: a name without a
//! directory on the server's own `PATH` (the one it is spawned with), a path relative to the
//! server's `cwd`. When it is not there, the directories searched and the nearest name found in
//! them; when it is there but will not run, why (not executable, or a `#!` interpreter that is
//! missing). The file system is read, nothing is run.

use std::path::{Path, PathBuf};

/// Most directory entries read while looking for a near name (a `PATH` of huge directories stays
/// cheap).
const MAX_ENTRIES_SCANNED: usize = 20_000;

/// Bytes read from the start of a script to find its `#!` line.
const SHEBANG_BYTES: usize = 256;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Resolution {
    /// The program exists and is executable; `missing_interpreter` is its `#!` line's program
    /// when that one cannot be found.
    Found {
        path: PathBuf,
        missing_interpreter: Option<String>,
    },
    /// A file without the permission to execute it.
    NotExecutable(PathBuf),
    /// Nowhere it was looked for: the directories searched, and the nearest program in them.
    Missing {
        searched: Vec<PathBuf>,
        nearest: Option<PathBuf>,
    },
}

/// Looks `command` up on `path_var` (a name) or relative to `cwd` (a path with a directory).
pub(super) fn resolve(command: &str, path_var: &str, cwd: Option<&Path>) -> Resolution {
    if crate::config::paths::has_directory(command) {
        let path = match cwd {
            Some(dir) if Path::new(command).is_relative() => dir.join(command),
            _ => PathBuf::from(command),
        };
        return at(path, path_var);
    }
    let dirs: Vec<PathBuf> = std::env::split_paths(path_var)
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    for dir in &dirs {
        let candidate = dir.join(command);
        if candidate.is_file() {
            return at(candidate, path_var);
        }
    }
    Resolution::Missing {
        nearest: nearest(command, &dirs),
        searched: dirs,
    }
}

/// A program given by its path.
fn at(path: PathBuf, path_var: &str) -> Resolution {
    if !path.is_file() {
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Resolution::Missing {
            nearest: nearest(&name, std::slice::from_ref(&dir)),
            searched: vec![dir],
        };
    }
    if !is_executable(&path) {
        return Resolution::NotExecutable(path);
    }
    let missing_interpreter = interpreter(&path).filter(|i| !interpreter_exists(i, path_var));
    Resolution::Found {
        path,
        missing_interpreter,
    }
}

/// The program of a script's `#!` line (for `#!/usr/bin/env NAME`, NAME).
fn interpreter(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(SHEBANG_BYTES);
    std::fs::File::open(path)
        .ok()?
        .take(SHEBANG_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|b| *b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let program = words.next()?;
    if program.ends_with("/env") {
        return words.find(|w| !w.starts_with('-')).map(str::to_owned);
    }
    Some(program.to_owned())
}

fn interpreter_exists(program: &str, path_var: &str) -> bool {
    if crate::config::paths::has_directory(program) {
        return Path::new(program).is_file();
    }
    std::env::split_paths(path_var).any(|d| d.join(program).is_file())
}

/// The program in `dirs` whose name is nearest to `name`, if one is near enough to be a typo.
fn nearest(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let mut scanned = 0;
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            scanned += 1;
            if scanned > MAX_ENTRIES_SCANNED {
                break;
            }
            let file = entry.file_name().to_string_lossy().into_owned();
            if !found.iter().any(|(n, _)| *n == file) {
                found.push((file, dir.clone()));
            }
        }
    }
    // The nearest executable, the first directory winning a tie (as the PATH look-up would).
    let mut best: Option<(usize, PathBuf)> = None;
    for (file, dir) in &found {
        let Some(d) = typo_distance(name, file) else {
            continue;
        };
        let path = dir.join(file);
        if best.as_ref().is_none_or(|(b, _)| d < *b) && is_executable(&path) {
            best = Some((d, path));
        }
    }
    best.map(|(_, path)| path)
}

/// How far `found` is from `wanted` when it is near enough to be a typo of it: one edit (a
/// letter wrong, missing, extra, or two swapped) in a name of up to 7 letters, two in a longer
/// one, none in a name of four letters or fewer. Program names are short: the looser bound of
/// config field names made `uvx` a typo of `ex`.
fn typo_distance(wanted: &str, found: &str) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (wanted.chars().collect(), found.chars().collect());
    let longest = a.len().max(b.len());
    // A name of four letters or fewer has too many neighbours for any of them to be the one.
    let allowed = match longest {
        0..=4 => return None,
        5..=7 => 1,
        _ => 2,
    };
    if a.len().abs_diff(b.len()) > allowed || a == b {
        return None;
    }
    let d = swaps_and_edits(&a, &b);
    (d <= allowed).then_some(d)
}

/// Edit distance counting a swap of two neighbouring letters as one edit (optimal string
/// alignment).
fn swaps_and_edits(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mcp-sidecar-cmd-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn file(path: &Path, text: &str, mode: u32) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_name_is_found_on_the_path_or_its_nearest_neighbour_named() {
        let d = dir("path");
        file(&d.join("mcp-server-files"), "#!/bin/sh\n", 0o755);
        let path_var = format!("/nonexistent-dir:{}", d.display());
        assert!(matches!(
            resolve("mcp-server-files", &path_var, None),
            Resolution::Found {
                missing_interpreter: None,
                ..
            }
        ));
        assert_eq!(
            resolve("mcp-server-flies", &path_var, None),
            Resolution::Missing {
                searched: vec![PathBuf::from("/nonexistent-dir"), d.clone()],
                nearest: Some(d.join("mcp-server-files")),
            }
        );
        assert!(matches!(
            resolve("completely-different", &path_var, None),
            Resolution::Missing { nearest: None, .. }
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn only_a_plausible_typo_is_a_nearest_match() {
        let d = dir("typos");
        for name in ["ex", "python3", "pydoc3", "mcp-server-memory", "uv"] {
            file(&d.join(name), "#!/bin/sh\n", 0o755);
        }
        let path_var = d.display().to_string();
        let nearest = |name: &str| match resolve(name, &path_var, None) {
            Resolution::Missing { nearest, .. } => {
                nearest.map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(nearest("uvx"), None, "uvx is no typo of ex, nor of uv");
        assert_eq!(nearest("pyhton3").as_deref(), Some("python3"));
        assert_eq!(
            nearest("mcp-server-memroy").as_deref(),
            Some("mcp-server-memory")
        );
        assert_eq!(nearest("node"), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_path_is_relative_to_the_cwd_and_must_be_executable() {
        let d = dir("rel");
        std::fs::create_dir_all(d.join("bin")).unwrap();
        file(&d.join("bin/server"), "x", 0o644);
        assert_eq!(
            resolve("./bin/server", "", Some(&d)),
            Resolution::NotExecutable(d.join("./bin/server"))
        );
        assert!(matches!(
            resolve("./bin/srever", "", Some(&d)),
            Resolution::Missing { nearest: None, .. }
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_script_whose_interpreter_is_missing_says_which() {
        let d = dir("shebang");
        file(
            &d.join("tool"),
            "#!/usr/bin/env python9.9 -u\nprint()\n",
            0o755,
        );
        file(&d.join("ok"), "#!/bin/sh\n", 0o755);
        assert_eq!(
            resolve("tool", &d.display().to_string(), None),
            Resolution::Found {
                path: d.join("tool"),
                missing_interpreter: Some("python9.9".into()),
            }
        );
        assert!(matches!(
            resolve("ok", &d.display().to_string(), None),
            Resolution::Found {
                missing_interpreter: None,
                ..
            }
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
