//! `package` servers: a registry package pinned by its archive's hash, fetched once into the cache,
//! checked before anything of it is unpacked or run, and started from the cache without the
//! network.
//!
//! Two halves. `local_*`: a registry of our own on 127.0.0.1 (an npm version document, a tarball
//! made here with `tar`, an attestation bundle), so the checks are tested with no network at all:
//! the bytes served differ from the pin, the cache was tampered with, the provenance names
//! another tarball. `registry_*`: the real npm registry and PyPI (CI reaches both), with
//! `@modelcontextprotocol/server-memory` and `mcp-server-time` at fixed versions and their real
//! hashes; the second start of each has its registry made unreachable.
//!
//! The sidecar is driven as a person would (`test --json`, `call`, `pin`): a first fetch from a
//! registry takes longer than the host harness's wait.

#![allow(clippy::disallowed_methods)] // the tests run the sidecar, npm and tar

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha512};

use crate::support::{fixture_bin, sidecar_bin, temp_dir};

const MEMORY: &str = "@modelcontextprotocol/server-memory@2025.9.25";
const MEMORY_SRI: &str = "sha512-6fdvSeJm8op2Cx736ck9MO8SdbFR+Of04KC/uchXnxvCTI68dJCRaxWuUBf8cv5RKNqGK98vHjRAmadapfnuRg==";
/// Another version's integrity: a pin that the registry's 2025.9.25 tarball does not have.
const OTHER_SRI: &str = "sha512-7F0hbaEB4lVqkYhNWmrC5jJjEWPCofgXd7OIk3h97HyvJL6aTAhlUNYaH8lCDxAzlK9sr2pLCkZEYI+m4HSOiA==";
const TIME: &str = "mcp-server-time==2026.10.19";
const TIME_SHA256: &str = "5c099a001c6ca78260bda419f2e9b2aabee1adc4fe6ca56d8959871ad8da58a1";

/// Runs the sidecar with `args` (after `--cache-dir cache`) and `env`.
fn sidecar(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(sidecar_bin())
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run mcp-sidecar")
}

fn config_file(dir: &Path, servers: Value) -> PathBuf {
    let path = dir.join("servers.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

/// `test --json`'s report of its one server.
fn tested(cache: &Path, file: &Path, env: &[(&str, &str)]) -> Value {
    let out = sidecar(cache, &["test", "--json", file.to_str().unwrap()], env);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("test --json: {e}\n{}", String::from_utf8_lossy(&out.stderr)));
    report["servers"][0].clone()
}

fn package_folders(cache: &Path, registry: &str) -> Vec<PathBuf> {
    match std::fs::read_dir(cache.join("packages").join(registry)) {
        Ok(dir) => dir.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

fn sri(bytes: &[u8]) -> String {
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
    )
}

/// Bodies served, by request path.
type Bodies = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A registry on 127.0.0.1 serving fixed bodies by path (anything else: 404), counting requests.
struct LocalRegistry {
    port: u16,
    bodies: Bodies,
    requests: Arc<Mutex<Vec<String>>>,
}

impl LocalRegistry {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let bodies: Bodies = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let (served, seen) = (Arc::clone(&bodies), Arc::clone(&requests));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    continue;
                }
                // The head's other lines; no request here has a body.
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) <= 2 {
                        break;
                    }
                }
                let path = line.split(' ').nth(1).unwrap_or("").to_owned();
                seen.lock().unwrap().push(path.clone());
                let body = served
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map(|(_, b)| b.clone());
                let (status, body) = match body {
                    Some(b) => ("200 OK", b),
                    None => ("404 Not Found", b"{}".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Self {
            port,
            bodies,
            requests,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn serve(&self, path: &str, body: Vec<u8>) {
        let mut bodies = self.bodies.lock().unwrap();
        bodies.retain(|(p, _)| p != path);
        bodies.push((path.to_owned(), body));
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// An npm tarball of package `local-fixture-server@1.0.0` whose one program starts the
/// fixture MCP server (no dependencies: `npm install` needs no registry).
fn fixture_tarball(dir: &Path) -> Vec<u8> {
    let package = dir.join("src/package");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        json!({"name": "local-fixture-server", "version": "1.0.0", "bin": {"local-fixture-server": "server.js"}})
            .to_string(),
    )
    .unwrap();
    let fixture = serde_json::to_string(&fixture_bin().display().to_string()).unwrap();
    std::fs::write(
        package.join("server.js"),
        format!(
            "#!/usr/bin/env node\nconst c = require('child_process').spawn({fixture}, [], {{stdio: 'inherit'}});\nc.on('exit', (code) => process.exit(code ?? 1));\n"
        ),
    )
    .unwrap();
    let tarball = dir.join("package.tgz");
    let status = Command::new("tar")
        .arg("czf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir.join("src"))
        .arg("package")
        .status()
        .expect("run tar");
    assert!(status.success());
    let mut bytes = Vec::new();
    std::fs::File::open(&tarball)
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// The version document of `local-fixture-server@1.0.0` claiming `integrity`.
fn version_document(registry: &LocalRegistry, integrity: &str, attestations: bool) -> Vec<u8> {
    let mut dist = json!({
        "integrity": integrity,
        "tarball": format!("{}/local-fixture-server/-/local-fixture-server-1.0.0.tgz", registry.url()),
    });
    if attestations {
        dist["attestations"] = json!({
            "url": format!("{}/-/npm/v1/attestations/local-fixture-server@1.0.0", registry.url()),
            "provenance": {"predicateType": "https://slsa.dev/provenance/v1"}
        });
    }
    json!({"name": "local-fixture-server", "version": "1.0.0", "dist": dist})
        .to_string()
        .into_bytes()
}

/// An attestations document whose SLSA statement's subject is `bytes`.
fn attestations(bytes: &[u8]) -> Vec<u8> {
    let statement = json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "pkg:npm/local-fixture-server@1.0.0", "digest": {"sha512": hex::encode(Sha512::digest(bytes))}}],
        "predicateType": "https://slsa.dev/provenance/v1",
        "predicate": {"buildDefinition": {"externalParameters": {"workflow": {
            "repository": "https://github.com/example/local-fixture-server",
            "path": ".github/workflows/publish.yml",
            "ref": "refs/tags/v1.0.0"
        }}}}
    });
    let payload = base64::engine::general_purpose::STANDARD.encode(statement.to_string());
    json!({"attestations": [{"predicateType": "https://slsa.dev/provenance/v1",
        "bundle": {"dsseEnvelope": {"payload": payload, "payloadType": "application/vnd.in-toto+json"}}}]})
    .to_string()
    .into_bytes()
}

/// A Sigstore bundle in npm's shape (tests/data/provenance, signed under a test root) whose
/// statement is about `bytes`: its signature and log entry no longer match, and its log is not
/// Sigstore's.
fn signed_attestations(bytes: &[u8]) -> Vec<u8> {
    let mut document: Value =
        serde_json::from_str(include_str!("../data/provenance/npm_attestations.json")).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let payload = &mut document["attestations"][0]["bundle"]["dsseEnvelope"]["payload"];
    let mut statement: Value =
        serde_json::from_slice(&b64.decode(payload.as_str().unwrap()).unwrap()).unwrap();
    statement["subject"][0]["digest"]["sha512"] = hex::encode(Sha512::digest(bytes)).into();
    *payload = b64.encode(statement.to_string()).into();
    document.to_string().into_bytes()
}

fn local_server(integrity: &str) -> Value {
    json!({"fixture": {"package": {"npm": "local-fixture-server@1.0.0", "integrity": integrity}}})
}

fn npm_env(registry: &LocalRegistry) -> Vec<(&'static str, String)> {
    vec![("NPM_CONFIG_REGISTRY", registry.url())]
}

fn env_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

const TARBALL_PATH: &str = "/local-fixture-server/-/local-fixture-server-1.0.0.tgz";
const DOCUMENT_PATH: &str = "/local-fixture-server/1.0.0";
const ATTESTATIONS_PATH: &str = "/-/npm/v1/attestations/local-fixture-server@1.0.0";

/// The registry's bytes are not the pinned ones (its document claims the pin): refused with
/// PACKAGE_INTEGRITY naming both hashes, nothing spawned (no spawn phase in the timings), nothing
/// left in the cache. The bytes that match with a provenance bundle that does not verify, or a
/// pinned publisher and no provenance: refused. Then the bytes that match: fetched, started, its
/// tools listed.
#[test]
fn local_registry_bytes_that_do_not_match_the_pin_are_refused_before_anything_runs() {
    let dir = temp_dir("pkg-local");
    let cache = dir.join("cache");
    let registry = LocalRegistry::start();
    let tarball = fixture_tarball(&dir);
    let pin = sri(&tarball);
    let env = npm_env(&registry);
    let env = env_refs(&env);
    let file = config_file(&dir, local_server(&pin));

    let mut tampered = tarball.clone();
    tampered.extend_from_slice(b"\0");
    registry.serve(DOCUMENT_PATH, version_document(&registry, &pin, false));
    registry.serve(TARBALL_PATH, tampered.clone());
    let report = tested(&cache, &file, &env);
    assert_eq!(report["state"], "error", "{report}");
    let error = &report["error"];
    assert_eq!(error["data"]["code"], "PACKAGE_INTEGRITY", "{report}");
    assert_eq!(error["data"]["expected"], pin.as_str());
    assert_eq!(error["data"]["actual"], sri(&tampered).as_str());
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("the downloaded tarball"),
        "{report}"
    );
    assert!(
        report["timings"].get("spawnMs").is_none(),
        "a process was spawned: {report}"
    );
    assert!(
        package_folders(&cache, "npm").is_empty(),
        "the refused package was left in the cache"
    );
    assert!(registry.requests().contains(&TARBALL_PATH.to_owned()));

    // The registry's own document names another hash: refused before the tarball is asked for.
    let before = registry.requests().len();
    let other = sri(b"another tarball");
    registry.serve(DOCUMENT_PATH, version_document(&registry, &other, false));
    let report = tested(&cache, &file, &env);
    assert_eq!(report["error"]["data"]["code"], "PACKAGE_INTEGRITY");
    assert_eq!(report["error"]["data"]["actual"], other.as_str());
    assert_eq!(registry.requests()[before..], [DOCUMENT_PATH.to_owned()]);

    // The right bytes, with a Sigstore bundle about them that Sigstore's public-good log never
    // signed (a test log's): refused naming the part that failed, nothing kept.
    registry.serve(DOCUMENT_PATH, version_document(&registry, &pin, true));
    registry.serve(TARBALL_PATH, tarball.clone());
    registry.serve(ATTESTATIONS_PATH, signed_attestations(&tarball));
    let report = tested(&cache, &file, &env);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    let failed = report["error"]["data"]["failed"]
        .as_str()
        .unwrap_or_default();
    assert!(failed.contains("not a trusted Rekor log"), "{report}");
    assert!(package_folders(&cache, "npm").is_empty());

    // A pinned publisher with no provenance at the registry: refused.
    registry.serve(DOCUMENT_PATH, version_document(&registry, &pin, false));
    let mut pinned = local_server(&pin);
    pinned["fixture"]["package"]["publisher"] =
        json!({"repository": "https://github.com/example/local-fixture-server"});
    let pinned_file = config_file(&dir, pinned);
    let report = tested(&cache, &pinned_file, &env);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    assert_eq!(
        report["error"]["data"]["field"], "package.publisher",
        "{report}"
    );
    assert!(package_folders(&cache, "npm").is_empty());
    let file = config_file(&dir, local_server(&pin));

    // The right bytes, no provenance, no publisher pinned: fetched and started.
    let report = tested(&cache, &file, &env);
    assert_eq!(report["state"], "ready", "{report}");
    assert!(report["toolsCount"].as_u64().unwrap() > 0, "{report}");
    let folders = package_folders(&cache, "npm");
    assert_eq!(folders.len(), 1, "{folders:?}");
    let record: Value =
        serde_json::from_slice(&std::fs::read(folders[0].join("record.json")).unwrap()).unwrap();
    assert_eq!(record["pin"], pin.as_str());
    assert!(record["publisher"].is_null(), "{record}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// After a fetch the registry is not asked again; a cached archive changed on disk is refused at
/// the next start; a provenance statement about another tarball is refused at the fetch.
#[test]
fn local_registry_cache_is_used_offline_and_checked_at_every_start() {
    let dir = temp_dir("pkg-cache");
    let cache = dir.join("cache");
    let registry = LocalRegistry::start();
    let tarball = fixture_tarball(&dir);
    let pin = sri(&tarball);
    let env = npm_env(&registry);
    let env = env_refs(&env);
    let file = config_file(&dir, local_server(&pin));
    registry.serve(DOCUMENT_PATH, version_document(&registry, &pin, true));
    registry.serve(TARBALL_PATH, tarball.clone());
    // The provenance names another tarball: refused, nothing kept.
    registry.serve(ATTESTATIONS_PATH, attestations(b"another tarball"));
    let report = tested(&cache, &file, &env);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    assert!(report["error"]["message"]
        .as_str()
        .unwrap()
        .contains("provenance"));
    assert!(package_folders(&cache, "npm").is_empty());

    registry.serve(DOCUMENT_PATH, version_document(&registry, &pin, false));
    assert_eq!(tested(&cache, &file, &env)["state"], "ready");
    let asked = registry.requests().len();
    // The second start: from the cache, with npm's registry unreachable besides.
    let offline = [
        ("NPM_CONFIG_REGISTRY", "http://127.0.0.1:1"),
        ("npm_config_offline", "true"),
    ];
    let report = tested(&cache, &file, &offline);
    assert_eq!(report["state"], "ready", "{report}");
    assert_eq!(
        registry.requests().len(),
        asked,
        "the registry was asked again"
    );

    // The cached archive changed under the sidecar: refused before the server runs.
    let archive = package_folders(&cache, "npm")[0].join("package.tgz");
    std::fs::write(&archive, b"not the tarball").unwrap();
    let report = tested(&cache, &file, &offline);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    assert!(report["error"]["message"]
        .as_str()
        .unwrap()
        .contains("the cached archive"));
    assert!(report["timings"].get("spawnMs").is_none(), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real npm registry: `@modelcontextprotocol/server-memory` pinned at 2025.9.25 with its
/// real integrity is fetched, runs, and its tool answers; the second start runs with the registry
/// unreachable; the integrity of another version is refused before anything runs.
#[test]
fn registry_npm_package_pinned_by_integrity() {
    let dir = temp_dir("pkg-npm");
    let cache = dir.join("cache");
    let server = |integrity: &str| {
        json!({"memory": {
            "package": {"npm": MEMORY, "integrity": integrity},
            "env": {"MEMORY_FILE_PATH": dir.join("memory.jsonl").display().to_string()}
        }})
    };
    let file = config_file(&dir, server(MEMORY_SRI));
    let call = |env: &[(&str, &str)]| {
        sidecar(
            &cache,
            &["call", file.to_str().unwrap(), "memory", "read_graph"],
            env,
        )
    };
    let first = call(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(String::from_utf8_lossy(&first.stdout).contains("entities"));
    let offline = [
        ("NPM_CONFIG_REGISTRY", "http://127.0.0.1:1"),
        ("npm_config_offline", "true"),
    ];
    let second = call(&offline);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );

    let wrong = config_file(&dir, server(OTHER_SRI));
    let report = tested(&cache, &wrong, &[]);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    assert_eq!(report["error"]["data"]["actual"], MEMORY_SRI);
    assert!(report["timings"].get("spawnMs").is_none(), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real PyPI: `mcp-server-time` pinned by its wheel's sha256 is fetched into a virtual
/// environment, runs, its tool answers; the second start has the index unreachable.
#[test]
fn registry_pypi_package_pinned_by_sha256() {
    let dir = temp_dir("pkg-pypi");
    let cache = dir.join("cache");
    let file = config_file(
        &dir,
        json!({"time": {"package": {"pypi": TIME, "sha256": TIME_SHA256}}}),
    );
    let call = |env: &[(&str, &str)]| {
        sidecar(
            &cache,
            &[
                "call",
                file.to_str().unwrap(),
                "time",
                "get_current_time",
                "--arg",
                "timezone=UTC",
            ],
            env,
        )
    };
    let first = call(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(String::from_utf8_lossy(&first.stdout).contains("UTC"));
    let second = call(&[("PIP_INDEX_URL", "http://127.0.0.1:1")]);
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let wrong = config_file(
        &dir,
        json!({"time": {"package": {"pypi": TIME, "sha256": "0".repeat(64)}}}),
    );
    let report = tested(&cache, &wrong, &[]);
    assert_eq!(
        report["error"]["data"]["code"], "PACKAGE_INTEGRITY",
        "{report}"
    );
    assert!(report["error"]["message"]
        .as_str()
        .unwrap()
        .contains(TIME_SHA256));
    // The virtual environment is tens of megabytes.
    let _ = std::fs::remove_dir_all(&dir);
}

/// The block without its `publisher`, which is there when the registry serves provenance that
/// verifies (then naming a repository).
fn without_publisher(block: &Value) -> Value {
    let mut block = block.clone();
    if let Some(publisher) = block["package"]
        .as_object_mut()
        .and_then(|p| p.remove("publisher"))
    {
        assert!(publisher["repository"].is_string(), "{publisher}");
    }
    block
}

/// `pin` prints the block with the registry's hash for an `npx` server and a `uvx` server.
#[test]
fn registry_pin_prints_the_package_block() {
    let cache = temp_dir("pkg-pin");
    let npx = format!("npx -y {MEMORY}");
    let out = sidecar(&cache, &["pin", "--stdio", &npx], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let block: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        without_publisher(&block),
        json!({"package": {"npm": MEMORY, "integrity": MEMORY_SRI}})
    );
    let uvx = format!("uvx {TIME}");
    let out = sidecar(&cache, &["pin", "--stdio", &uvx], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let block: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        without_publisher(&block),
        json!({"package": {"pypi": TIME, "sha256": TIME_SHA256}})
    );
    // A command that runs no registry package: a usage error.
    let out = sidecar(&cache, &["pin", "--stdio", "node server.js"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&cache);
}
