//! The packages that carry the sidecar binary, installed the way a user installs them, with no Rust
//! toolchain on `PATH`: the x86_64 manylinux wheel (pip, into a fresh venv) and the npm packages
//! (`mcp-sidecar`, packed by the release script with its platform packages, installed into a
//! scratch project, where npm picks `mcp-sidecar-linux-x64` from its optional dependencies); each
//! client's own suite then runs against what was installed. The Go client's download is tested by
//! the Go suite against a local release host (clients/go/download_test.go).
//!
//! One release build serves every test here: the wheel's (`maturin build --release --zig`, the
//! manylinux2014 glibc floor), whose binary also goes into the npm platform package. It is the
//! slow part (a fat-LTO build), made once per run under `target/packages/`.
//! Run: `cargo test --test integration packages::`.

#![allow(clippy::disallowed_methods)] // the harness runs pip, npm and the installed programs

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The release build: the wheel and the binary it carries.
struct Release {
    wheel: PathBuf,
    binary: PathBuf,
}

/// Fails with the command's output unless it succeeded; returns its stdout.
fn run(command: &mut Command) -> String {
    let shown = format!("{command:?}");
    let output: Output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown} ({e}); .ci/run installs it"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{shown} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn release() -> &'static Release {
    static BUILT: OnceLock<Release> = OnceLock::new();
    BUILT.get_or_init(|| {
        let target_dir = repo().join("target/packages");
        let wheels = target_dir.join("wheels");
        let _ = std::fs::remove_dir_all(&wheels);
        run(Command::new("maturin")
            .args([
                "build",
                "--release",
                "--locked",
                "--zig",
                "--compatibility",
                "manylinux2014",
                "--target",
                "x86_64-unknown-linux-gnu",
                "--out",
            ])
            .arg(&wheels)
            .current_dir(repo().join("clients/python"))
            .env("CARGO_TARGET_DIR", &target_dir));
        let wheel = std::fs::read_dir(&wheels)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "whl"))
            .expect("maturin wrote no wheel");
        // The binary the wheel carries, taken out of it: what users get is what the npm test packs.
        let binary = target_dir.join("wheel-binary/mcp-sidecar");
        let script = format!(
            "import os, sys, zipfile\n\
             data = zipfile.ZipFile(sys.argv[1]).read('mcp_sidecar-{VERSION}.data/scripts/mcp-sidecar')\n\
             os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)\n\
             open(sys.argv[2], 'wb').write(data)\n\
             os.chmod(sys.argv[2], 0o755)\n"
        );
        run(Command::new("python3")
            .args(["-c", &script])
            .arg(&wheel)
            .arg(&binary));
        Release { wheel, binary }
    })
}

/// `PATH` without any directory holding cargo or rustc: a machine without Rust.
fn path_without_rust() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join("cargo").exists() && !dir.join("rustc").exists())
        .collect();
    std::env::join_paths(kept).unwrap().into_string().unwrap()
}

/// A command with the environment of a user without Rust: only `PATH` (no cargo, no rustc),
/// `HOME` (pip's and npm's caches) and the fixture server the suites run; no `MCP_SIDECAR_BIN`, so
/// the sidecar is whatever the package installed.
fn as_user(program: impl AsRef<std::ffi::OsStr>, path: &str) -> Command {
    let mut command = Command::new(program);
    command
        .env_clear()
        .env("PATH", path)
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .env("LANG", "C.UTF-8")
        .env("MCP_FIXTURE_BIN", support::fixture_bin());
    command
}

/// The wheel installs with pip alone (no build), puts `mcp-sidecar` on the venv's PATH, and the
/// Python client's whole suite passes against the installed package and that binary.
#[test]
fn python_wheel_installs_without_rust_and_the_suite_passes_against_it() {
    let release = release();
    let name = release.wheel.file_name().unwrap().to_string_lossy();
    assert!(
        name.starts_with(&format!("mcp_sidecar-{VERSION}-py3-none-"))
            && name.contains("manylinux_2_17_x86_64")
            && name.contains("manylinux2014_x86_64"),
        "wheel {name}"
    );
    // auditwheel: the binary needs nothing newer than the manylinux2014 glibc floor.
    let audit = run(Command::new("auditwheel").arg("show").arg(&release.wheel));
    assert!(
        audit.contains("\"manylinux_2_17_x86_64\""),
        "auditwheel show:\n{audit}"
    );

    let venv = support::temp_dir("wheel-venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    let bin = venv.join("bin");
    let path = format!("{}:{}", bin.display(), path_without_rust());
    run(as_user(bin.join("pip"), &path)
        .args(["install", "--quiet", "--no-index"])
        .arg(&release.wheel));
    run(as_user(bin.join("pip"), &path).args(["install", "--quiet", "pytest==9.2.0"]));

    // No Rust here: the venv's run environment has neither cargo nor rustc.
    let which = run(as_user(bin.join("python"), &path).args([
        "-c",
        "import shutil; print(shutil.which('cargo'), shutil.which('rustc'))",
    ]));
    assert_eq!(which.trim(), "None None");
    let version = run(as_user("mcp-sidecar", &path).arg("--version"));
    assert_eq!(version.trim(), format!("mcp-sidecar {VERSION}"));
    let found = run(as_user(bin.join("python"), &path).args([
        "-c",
        "import mcp_sidecar; print(mcp_sidecar.find_sidecar_bin()); print(mcp_sidecar.__file__)",
    ]));
    let mut lines = found.lines();
    assert_eq!(
        Path::new(lines.next().unwrap()).canonicalize().unwrap(),
        bin.join("mcp-sidecar").canonicalize().unwrap()
    );
    assert!(lines
        .next()
        .unwrap()
        .starts_with(&venv.to_string_lossy().into_owned()));

    let suite = run(as_user(bin.join("python"), &path)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
        .current_dir(repo().join("clients/python"))
        .env("MCP_SIDECAR_TEST_INSTALLED", "1"));
    eprintln!("{suite}");
    assert!(suite.contains(" passed"), "{suite}");
    let _ = std::fs::remove_dir_all(&venv);
}

/// The sdist holds what a build from source needs (the crate, its lockfile, the Python package),
/// and cargo resolves its manifest and workspace offline from the lockfile it ships. Not built
/// here: that would be a second release build.
#[test]
fn python_sdist_holds_the_sources_a_build_needs() {
    let out = support::temp_dir("sdist");
    run(Command::new("maturin")
        .args(["sdist", "--out"])
        .arg(&out)
        .current_dir(repo().join("clients/python")));
    let sdist = out.join(format!("mcp_sidecar-{VERSION}.tar.gz"));
    let listing = run(Command::new("tar").arg("-tzf").arg(&sdist));
    let root = format!("mcp_sidecar-{VERSION}/");
    for file in [
        "PKG-INFO",
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "src/lib.rs",
        "src/limits.rs",
        "src/mcp_sidecar/__init__.py",
        "src/mcp_sidecar/py.typed",
        "proto/PROTOCOL.md",
    ] {
        assert!(
            listing.lines().any(|l| l == format!("{root}{file}")),
            "the sdist lacks {file}:\n{listing}"
        );
    }
    run(Command::new("tar")
        .arg("-xzf")
        .arg(&sdist)
        .arg("-C")
        .arg(&out));
    // maturin drops the fixtures crate from the sdist's workspace, so cargo prunes the packages
    // only it used from the lockfile; every package left keeps the version the lockfile pinned.
    let lock = out.join(&root).join("Cargo.lock");
    let shipped = locked_packages(&std::fs::read_to_string(&lock).unwrap());
    run(Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--offline"])
        .arg("--manifest-path")
        .arg(out.join(&root).join("Cargo.toml")));
    let resolved = locked_packages(&std::fs::read_to_string(&lock).unwrap());
    assert!(resolved.iter().any(|(name, _)| name == "tokio"));
    let unpinned: Vec<_> = resolved.difference(&shipped).collect();
    assert!(
        unpinned.is_empty(),
        "a build from the sdist resolves packages its lockfile does not pin: {unpinned:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The (name, version) of every `[[package]]` of a Cargo.lock.
fn locked_packages(lock: &str) -> std::collections::BTreeSet<(String, String)> {
    let value = |line: &str, key: &str| {
        line.strip_prefix(key)
            .map(|rest| rest.trim_matches('"').to_owned())
    };
    let mut packages = std::collections::BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = value(line, "name = ") {
            name = Some(n);
        } else if let (Some(v), Some(n)) = (value(line, "version = "), name.take()) {
            packages.insert((n, v));
        }
    }
    packages
}

/// The platform packages npm installed into a project: the `node_modules` entries named
/// `mcp-sidecar-*` (the main package, `mcp-sidecar`, is not one of them), sorted.
fn platform_packages_installed(project: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(project.join("node_modules"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("mcp-sidecar-"))
        .collect();
    names.sort();
    names
}

/// The release script packs `mcp-sidecar` and its platform packages from release archives;
/// `npm install` of the `mcp-sidecar` tarball (offline, no Rust) brings the linux-x64 package and
/// no other, the client finds the binary by itself, `npx mcp-sidecar` runs it, and the Node
/// client's suite passes against the installed package. With `--omit=optional`, the error names
/// the package missing.
#[test]
fn npm_packages_install_without_rust_and_the_suite_passes_against_them() {
    let release = release();
    let work = support::temp_dir("npm-packages");

    // dist/ as the release lays it out: archives and their SHA256SUMS. Besides the real linux-x64
    // binary, a musl and a macOS archive whose "binary" is a script that fails: npm must leave
    // their packages out on this glibc Linux machine (their `libc` and `os` fields).
    let dist = work.join("dist");
    let stand_in = work.join("stand-in");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::create_dir_all(&stand_in).unwrap();
    std::fs::write(stand_in.join("mcp-sidecar"), "#!/bin/sh\nexit 99\n").unwrap();
    let archive = |target: &str, dir: &Path| {
        let name = format!("mcp-sidecar-v{VERSION}-{target}.tar.gz");
        run(Command::new("tar")
            .arg("-czf")
            .arg(dist.join(&name))
            .arg("-C")
            .arg(dir)
            .arg("mcp-sidecar"));
        name
    };
    let archives = [
        archive("x86_64-unknown-linux-gnu", release.binary.parent().unwrap()),
        archive("x86_64-unknown-linux-musl", &stand_in),
        archive("aarch64-apple-darwin", &stand_in),
    ];
    let sums = run(Command::new("sha256sum").args(&archives).current_dir(&dist));
    std::fs::write(dist.join("SHA256SUMS"), sums).unwrap();
    run(Command::new("bash")
        .arg(repo().join(".github/scripts/build-npm-packages"))
        .arg("--allow-missing")
        .env("DIST_DIR", &dist)
        .current_dir(repo()));
    let packed = |name: &str| dist.join(format!("npm/{name}-{VERSION}.tgz"));

    // A project that installs the one package, as `npm install mcp-sidecar` does; the registry's
    // part is played by overrides pointing the platform packages at their tarballs. npm reads the
    // optional dependencies from the packed manifest and keeps only this platform's.
    let path = path_without_rust();
    let scratch_project = |name: &str, omit_optional: bool| {
        let dir = work.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let overrides: serde_json::Map<String, serde_json::Value> =
            ["linux-x64", "linux-x64-musl", "darwin-arm64"]
                .iter()
                .map(|key| {
                    let tarball = packed(&format!("mcp-sidecar-{key}"));
                    (
                        format!("mcp-sidecar-{key}"),
                        format!("file:{}", tarball.display()).into(),
                    )
                })
                .collect();
        let manifest = serde_json::json!({
            "name": "scratch", "version": "1.0.0", "private": true, "type": "module",
            "overrides": overrides,
        });
        std::fs::write(dir.join("package.json"), manifest.to_string()).unwrap();
        let mut install = as_user("npm", &path);
        install
            .args(["install", "--offline", "--no-audit", "--no-fund"])
            .arg(packed("mcp-sidecar"))
            .current_dir(&dir);
        if omit_optional {
            install.arg("--omit=optional");
        }
        run(&mut install);
        dir
    };
    let app = scratch_project("app", false);
    assert_eq!(platform_packages_installed(&app), ["mcp-sidecar-linux-x64"]);
    assert!(
        run(as_user("sh", &path).args(["-c", "command -v cargo rustc || echo none"]))
            .trim()
            .ends_with("none")
    );

    // The client finds the platform package's binary with nothing set.
    std::fs::write(
        app.join("main.js"),
        "import { start } from 'mcp-sidecar';\n\
         const client = await start();\n\
         console.log(JSON.stringify({ source: client.binarySource, path: client.binaryPath }));\n\
         await client.close();\n",
    )
    .unwrap();
    let started = run(as_user("node", &path).arg("main.js").current_dir(&app));
    let expected = app.join("node_modules/mcp-sidecar-linux-x64/bin/mcp-sidecar");
    assert_eq!(
        started.trim(),
        format!(r#"{{"source":"package","path":"{}"}}"#, expected.display())
    );

    // The package's command, as esbuild's: `npx mcp-sidecar …` runs the binary.
    let version = run(as_user("npx", &path)
        .args(["--offline", "mcp-sidecar", "--version"])
        .current_dir(&app));
    assert_eq!(version.trim(), format!("mcp-sidecar {VERSION}"));
    let config = app.join("mcp.json");
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {"fx": {"command": support::fixture_bin()}}}).to_string(),
    )
    .unwrap();
    let doctor = run(as_user("npx", &path)
        .args(["--offline", "mcp-sidecar", "doctor", "--config"])
        .arg(&config)
        .current_dir(&app));
    assert!(doctor.contains("fx  ready"), "doctor:\n{doctor}");

    // The Node client's suite, every import of the package's own files served by the installed copy.
    let node = repo().join("clients/node");
    let hook = node.join("test-support/installed-package.mjs");
    let suite = run(as_user("node", &path)
        .args(["--test", "test/"])
        .current_dir(&node)
        .env("NODE_OPTIONS", format!("--import={}", hook.display()))
        .env(
            "MCP_SIDECAR_TEST_INSTALLED",
            app.join("node_modules/mcp-sidecar"),
        ));
    eprintln!("{suite}");
    assert!(suite.contains("# fail 0"), "{suite}");

    // Without the platform package: the error names it, from the API and from the command (which
    // must not take itself, linked into node_modules/.bin, for the sidecar).
    let bare = scratch_project("bare", true);
    assert_eq!(platform_packages_installed(&bare), Vec::<String>::new());
    std::fs::write(
        bare.join("main.js"),
        "import { start } from 'mcp-sidecar';\n\
         try { await start(); } catch (err) { console.log(err.code, err.data.expectedPackage); console.log(err.message); }\n",
    )
    .unwrap();
    let refused = run(as_user("node", &path).arg("main.js").current_dir(&bare));
    assert!(
        refused.starts_with("BINARY_NOT_FOUND mcp-sidecar-linux-x64\n")
            && refused.contains(&format!("npm install mcp-sidecar-linux-x64@{VERSION}")),
        "{refused}"
    );
    let command = as_user("npx", &path)
        .args(["--offline", "mcp-sidecar", "--version"])
        .current_dir(&bare)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&command.stderr);
    assert_eq!(command.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("package mcp-sidecar-linux-x64: not installed"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&work);
}
