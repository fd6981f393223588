//! The command line as a new user meets it, end to end with the real binary: the demo config from
//! any folder, a config file given where a server name goes, `call SERVER.TOOL` and `call --json`
//! before the server, servers given inline (`--stdio`), the configs people already have found
//! without `--config` (a scratch home and project, never the real ones), and help that lists only
//! a command's own flags.

#![allow(clippy::disallowed_methods)] // the tests run the binary under test

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::{json, Value};

use crate::cli::{config_file, fixture_with, run, Run};
use crate::support::{fixture_bin, sidecar_bin, temp_dir, WAIT};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `mcp-sidecar ARGS` in `cwd` with `HOME` (and the settings folder below it) set to
/// `home`: nothing of the real home is read.
pub(crate) fn run_in(args: &[&str], cwd: &Path, home: &Path) -> Run {
    let child = Command::new(sidecar_bin())
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env_remove("CODEX_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcp-sidecar");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = rx
        .recv_timeout(WAIT * 2)
        .unwrap_or_else(|_| panic!("mcp-sidecar {args:?} did not exit"))
        .unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn write(path: &Path, doc: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, doc.to_string()).unwrap();
}

/// The `serverInfo.name` of each ready server of a `list --json` document, by server.
fn server_infos(doc: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "ready")
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["serverInfo"]["name"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo.json")
}

#[test]
fn the_demo_config_runs_from_any_folder_with_the_build_that_runs_it() {
    // The demo names the fixture beside the sidecar binary, not a path below the repository.
    let elsewhere = temp_dir("cli-demo");
    let r = run_in(
        &["list", "--json", "--config", path(&demo())],
        &elsewhere,
        &elsewhere,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        server_infos(&r.json()),
        [("alpha", "alpha"), ("beta", "beta"), ("legacy", "legacy")]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
}

#[test]
fn a_config_file_given_where_a_server_name_goes_is_read_as_one() {
    let file = config_file(
        "cli-positional",
        json!({"alpha": fixture_with(&["--name", "alpha"]), "beta": fixture_with(&["--name", "beta"])}),
    );
    let r = run(&["list", "--json", path(&file)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(server_infos(&r.json()).len(), 2);
    let r = run(&["test", "--json", path(&file), "beta"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("\"beta\"") && !r.stdout.contains("\"alpha\""),
        "{}",
        r.stdout
    );
    let r = run(&["doctor", "--json", path(&file), "alpha"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn call_takes_server_dot_tool_and_a_json_flag_before_the_server() {
    let file = config_file(
        "cli-call-forms",
        json!({"alpha": fixture_with(&["--name", "alpha"])}),
    );
    let r = run(&["call", path(&file), "alpha.echo", "--arg", "message=dotted"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "dotted\n"), "{}", r.stderr);
    // `--json` right before the server prints the whole result instead of taking `alpha` for
    // the arguments.
    let r = run(&[
        "call",
        "--json",
        "--config",
        path(&file),
        "alpha",
        "echo",
        "--arg",
        "message=hi",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let doc = r.json();
    assert_eq!(
        (doc["server"].as_str(), doc["text"].as_str()),
        (Some("alpha"), Some("hi"))
    );
    // `--json '{…}'` still gives the arguments.
    let r = run(&[
        "call",
        "--json",
        r#"{"message": "obj"}"#,
        path(&file),
        "alpha",
        "echo",
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "obj\n"), "{}", r.stderr);
    // A word that is neither form says what is wanted.
    let r = run(&["call", path(&file), "echo"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("`call SERVER echo` or `call SERVER.echo`"),
        "{}",
        r.stderr
    );
}

#[test]
fn servers_given_inline_run_without_a_config_file() {
    let scratch = temp_dir("cli-inline");
    let fixture = fixture_bin();
    let stdio = format!("'{}' --name inline", fixture.display());
    // One inline server: the tool alone is enough.
    let r = run_in(
        &["call", "--stdio", &stdio, "echo", "--arg", "message=yo"],
        &scratch,
        &scratch,
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, "yo\n"), "{}", r.stderr);
    let r = run_in(
        &[
            "list", "--json", "--stdio", &stdio, "--name", "mine", "--stdio", &stdio,
        ],
        &scratch,
        &scratch,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        server_infos(&r.json()),
        [("mcp-fixture", "inline"), ("mine", "inline")].map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // A remote server from its URL alone, named after its host unless --name says otherwise.
    let remote = crate::remote::HttpFixture::start(&[]);
    let url = format!("{}/mcp", remote.base);
    let r = run_in(
        &[
            "call",
            "--url",
            &url,
            "--name",
            "far",
            "far.echo",
            "--arg",
            "text=over http",
        ],
        &scratch,
        &scratch,
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "over http\n"),
        "{}",
        r.stderr
    );
    let r = run_in(&["test", "--json", "--url", &url], &scratch, &scratch);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.json()["servers"][0]["name"], "127-0-0-1", "{}", r.stdout);
    let r = run_in(&["test", "--stdio", "'unclosed"], &scratch, &scratch);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("unclosed quote"), "{}", r.stderr);
}

#[test]
fn without_config_the_files_people_have_are_read_project_before_user() {
    let root = temp_dir("cli-discover");
    let home = root.join("home");
    let project = root.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let project = project.canonicalize().unwrap();
    let named = |name: &str| fixture_with(&["--name", name]);
    // Cursor (user): `shared` and `cursor`; the project's `.mcp.json` defines `shared` too.
    write(
        &home.join(".cursor/mcp.json"),
        &json!({"mcpServers": {"shared": named("from-cursor-user"), "cursor": named("cursor")}}),
    );
    write(
        &project.join(".mcp.json"),
        &json!({"mcpServers": {"shared": named("from-project")}}),
    );
    // Claude Code: a user-scope server, and one for this project only (local scope).
    write(
        &home.join(".claude.json"),
        &json!({"numStartups": 3, "mcpServers": {"code-user": named("code-user")},
                "projects": {path(&project): {"mcpServers": {"code-local": named("code-local")}},
                             "/elsewhere": {"mcpServers": {"other": named("other")}}}}),
    );
    write(
        &home.join(".config/Claude/claude_desktop_config.json"),
        &json!({"mcpServers": {"desktop": named("desktop")}}),
    );
    let codex = format!(
        "[mcp_servers.codex]\ncommand = {}\nargs = [\"--name\", \"codex\"]\n",
        json!(fixture_bin())
    );
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::write(home.join(".codex/config.toml"), codex).unwrap();
    // The project's `.mcp.json` is approved here: the gate is `cli_project_gate`'s subject.
    let r = run_in(&["list", "--json", "--allow-project"], &project, &home);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        server_infos(&r.json()),
        [
            ("code-local", "code-local"),
            ("code-user", "code-user"),
            ("codex", "codex"),
            ("cursor", "cursor"),
            ("desktop", "desktop"),
            ("shared", "from-project"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    // One line says what was read, in precedence order, and what was passed over.
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("mcp-sidecar: read "))
        .unwrap();
    let order = [
        "Claude Code, local",
        "Claude Code, project",
        "Claude Code, user",
        "Claude Desktop",
        "Cursor, user",
        "Codex",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|w| line.find(w).unwrap_or_else(|| panic!("{w}: {line}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
    assert!(line.contains("`shared` defined earlier"), "{line}");
    // `--config` keeps its meaning: only that file.
    let file = config_file("cli-discover-given", json!({"given": named("given")}));
    let r = run_in(
        &["list", "--json", "--config", path(&file)],
        &project,
        &home,
    );
    assert_eq!(
        server_infos(&r.json()),
        [("given".to_owned(), "given".to_owned())]
    );
    assert!(!r.stderr.contains("mcp-sidecar: read"), "{}", r.stderr);
    // Nothing anywhere: a usage error saying where it looked and what to pass.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let r = run_in(&["list"], &empty, &empty);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("--config FILE") && r.stderr.contains("--stdio"),
        "{}",
        r.stderr
    );
}

#[test]
fn help_lists_a_commands_own_flags_and_the_formats() {
    for command in [
        "list",
        "call",
        "test",
        "doctor",
        "inspect",
        "resources",
        "read",
        "prompts",
        "prompt",
        "login",
    ] {
        let r = run(&[command, "--help"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            !r.stdout.contains("--max-inflight") && !r.stdout.contains("--max-line-bytes"),
            "{command}: {}",
            r.stdout
        );
        assert!(r.stdout.contains("Examples:"), "{command}: {}", r.stdout);
    }
    for command in ["list", "call", "inspect"] {
        let r = run(&[command, "--help"]);
        assert!(
            r.stdout
                .contains("[possible values: openai, openai-responses, anthropic, gemini, mcp]"),
            "{command}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains("[default: openai]"),
            "{command}: {}",
            r.stdout
        );
    }
    // Serve mode still shows its flags, and they still parse after any command.
    assert!(run(&["serve", "--help"]).stdout.contains("--max-inflight"));
    let r = run(&["list", "--max-inflight", "0"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn list_of_a_named_server_shows_each_tools_signature() {
    let file = config_file(
        "cli-signatures",
        json!({"alpha": fixture_with(&["--name", "alpha"])}),
    );
    let r = run(&["list", path(&file), "alpha"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    for line in [
        "  echo(message: string)",
        "  exit(code?: integer)",
        "  sleep(ms: integer)",
    ] {
        assert!(r.stdout.lines().any(|l| l == line), "{line}: {}", r.stdout);
    }
    // Every server at once: the compact list of names and descriptions.
    let r = run(&["list", path(&file)]);
    assert!(!r.stdout.contains("echo(message"), "{}", r.stdout);
}

#[test]
fn resources_read_prompts_and_prompt_serve_the_surface_beyond_tools() {
    let file = config_file(
        "cli-surface",
        json!({"surf": fixture_with(&["--surface"]), "plain": fixture_with(&[])}),
    );
    let r = run(&["resources", path(&file)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.lines().any(|l| l.starts_with("surf")
            && l.contains("fixture://text/readme")
            && l.contains("text/plain")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("fixture://large/{bytes}"), "{}", r.stdout);
    let doc = run(&["resources", "--json", path(&file), "surf"]).json();
    assert_eq!(doc["resources"].as_array().unwrap().len(), 3, "{doc}");
    assert_eq!(
        doc["resourceTemplates"].as_array().unwrap().len(),
        2,
        "{doc}"
    );
    // Both pages of the server's prompts, each with its arguments.
    let r = run(&["prompts", path(&file)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.lines().any(|l| l.starts_with("surf")
            && l.contains("greet(name)")
            && l.contains("Greets someone.")),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("picture()"), "{}", r.stdout);
    // A URI is never taken for a config file.
    let r = run(&["read", path(&file), "surf", "fixture://text/readme"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "Fixture readme.\n"),
        "{}",
        r.stderr
    );
    let r = run(&["prompt", path(&file), "surf", "greet", "--arg", "name=Ann"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "user: Hello, Ann!\n"),
        "{}",
        r.stderr
    );
    let r = run(&["read", path(&file), "surf", "fixture://missing"]);
    assert_eq!(r.code, 4, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("Resource not found"), "{}", r.stderr);
}
