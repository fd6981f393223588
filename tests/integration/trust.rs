//! Configuration loading and the trust gate over host protocol v1: `servers/load`, `source` in status,
//! `requireTrust` round trip, `expectTools`, and secrets that never reach stdout.

use serde_json::{json, Value};

use crate::support::{fixture, Sidecar};

const SECRET: &str = "sk-live-0123456789-do-not-print";

fn with_env(mut config: Value, env: Value) -> Value {
    config["env"] = env;
    config
}

#[test]
fn trust_round_trip_and_digest_sensitivity() {
    let mut s = Sidecar::initialized(json!({"requireTrust": true}));
    let config = with_env(
        fixture(&["--stderr-line", SECRET]),
        json!({"API_TOKEN": SECRET, "LEVEL": "1"}),
    );
    let (code, e) = s.error_of("servers/add", json!({"name": "fx", "config": config}));
    assert_eq!(code, "TRUST_REQUIRED", "{e}");
    assert_eq!(e["code"], -32014);
    let data = &e["data"];
    let digest = data["digest"].as_str().unwrap().to_owned();
    assert!(digest.starts_with("sha256:"), "{e}");
    assert!(
        data["commandLine"]
            .as_str()
            .unwrap()
            .contains("mcp-fixture --stderr-line ***"),
        "{e}"
    );
    assert_eq!(data["envNames"], json!(["API_TOKEN", "LEVEL"]));
    assert_eq!(data["source"], "host");
    assert!(data["warnings"].as_array().unwrap().is_empty(), "{e}");
    assert_eq!(
        s.call("servers/list", json!({}))["servers"],
        json!([]),
        "nothing registered before approval"
    );

    let (code, _) = s.error_of(
        "servers/add",
        json!({"name": "fx", "config": config, "trust": "sha256:00"}),
    );
    assert_eq!(code, "TRUST_REQUIRED");
    // Any change to the launch config changes the digest.
    for changed in [
        with_env(
            fixture(&["--stderr-line", SECRET]),
            json!({"API_TOKEN": "other-secret-value", "LEVEL": "1"}),
        ),
        with_env(
            fixture(&["--stderr-line", SECRET]),
            json!({"API_TOKEN": SECRET, "LEVEL": "2"}),
        ),
        with_env(
            fixture(&["--stderr-line", SECRET, "x"]),
            json!({"API_TOKEN": SECRET, "LEVEL": "1"}),
        ),
        json!({"command": fixture(&[])["command"], "args": ["--stderr-line", SECRET], "env": {"API_TOKEN": SECRET, "LEVEL": "1"}, "cwd": "/tmp"}),
    ] {
        let (code, e) = s.error_of(
            "servers/add",
            json!({"name": "fx", "config": changed, "trust": digest}),
        );
        assert_eq!(code, "TRUST_REQUIRED", "{e}");
        assert_ne!(e["data"]["digest"], json!(digest));
    }
    let status = s.call(
        "servers/add",
        json!({"name": "fx", "config": config, "trust": digest}),
    );
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["source"], "host");
    assert!(
        status["command"]
            .as_str()
            .unwrap()
            .contains("--stderr-line ***"),
        "{status}"
    );
    s.call("tools/list", json!({}));
    s.call(
        "tools/call",
        json!({"name": "mcp__fx__environment", "arguments": {}}),
    );
    s.call("shutdown", json!({}));
    s.wait_exit();
    let all: Vec<String> = s.drain_after_exit().iter().map(Value::to_string).collect();
    let leaked: Vec<&String> = all.iter().filter(|l| l.contains(SECRET)).collect();
    assert!(leaked.is_empty(), "a secret reached stdout: {leaked:?}");
}

#[test]
fn load_json_sets_source_and_reports_diagnostics() {
    let mut s = Sidecar::initialized(json!({}));
    let doc = json!({"mcpServers": {"a": fixture(&[]), "b": {"comand": "x"}}});
    let r = s.call("servers/load", json!({"json": doc}));
    assert_eq!(r["added"].as_array().unwrap().len(), 1, "{r}");
    assert_eq!(r["added"][0]["name"], "a");
    assert_eq!(r["added"][0]["source"], "user");
    assert_eq!(r["added"][0]["state"], "ready");
    let d = &r["diagnostics"][0];
    assert_eq!(d["path"], "mcpServers.b.comand", "{r}");
    assert_eq!(d["kind"], "unknown-field");
    assert_eq!(s.server_status("a")["source"], "user");
}

#[test]
fn expect_tools_mismatch_fails_the_start_listing_both_sides() {
    let mut s = Sidecar::initialized(json!({}));
    let mut config = fixture(&[]);
    config["expectTools"] = json!([
        "echo",
        "fail",
        "sleep",
        "large",
        "environment",
        "exit",
        "missing_tool"
    ]);
    let status = s.add("fx", config);
    assert_eq!(status["state"], "error", "{status}");
    let data = &status["lastError"]["data"];
    assert_eq!(data["missing"], json!(["missing_tool"]), "{status}");
    assert_eq!(data["unexpected"], json!(["image"]), "{status}");
    let mut ok = fixture(&[]);
    ok["expectTools"] = json!([
        "echo",
        "fail",
        "sleep",
        "large",
        "environment",
        "exit",
        "image"
    ]);
    ok["includeTools"] = json!(["e*"]);
    let status = s.add("ok", ok);
    assert_eq!(status["state"], "ready", "{status}");
    assert_eq!(status["toolsCount"], 3, "echo, environment, exit: {status}");
}

#[test]
fn load_adds_remote_entries_and_never_reads_http_as_sse() {
    use crate::remote::HttpFixture;
    const TOKEN: &str = "tok-load-secret-0123456789";
    let legacy = HttpFixture::start(&["--sse"]);
    let modern =
        HttpFixture::start(&["--require-header", &format!("authorization=Bearer {TOKEN}")]);
    let mut s = Sidecar::initialized(json!({}));
    // The epoch dialect: `type: "http"` is Streamable HTTP, even against a legacy SSE endpoint.
    let doc = json!({"servers": {
        "modern": {"type": "http", "url": format!("{}/mcp", modern.base), "headers": {"Authorization": format!("Bearer {TOKEN}")}},
        "legacy": {"type": "http", "url": format!("{}/sse", legacy.base)},
    }});
    let r = s.call("servers/load", json!({"json": doc, "dialect": "epoch"}));
    assert_eq!(r["diagnostics"], json!([]), "{r}");
    assert!(
        !r.to_string().contains(TOKEN),
        "a header value reached the result: {r}"
    );
    let added = r["added"].as_array().unwrap();
    let status = |name: &str| {
        added
            .iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {r}"))
    };
    let m = status("modern");
    assert_eq!(m["state"], "ready", "{m}");
    assert_eq!(m["transport"], "http");
    assert_eq!(m["url"], format!("{}/mcp", modern.base));
    assert_eq!(m["headers"], json!(["Authorization"]));
    assert_eq!(m["source"], "user");
    assert!(m.get("pid").is_none(), "{m}");
    let l = status("legacy");
    assert_eq!(l["transport"], "http", "{l}");
    assert_eq!(l["state"], "error", "{l}");
    assert!(l["lastError"].to_string().contains("404"), "{l}");
    assert!(
        !legacy.requests().contains("GET"),
        "`type: http` fell back to SSE: {}",
        legacy.requests()
    );
    assert!(
        modern
            .requests()
            .contains(&format!("authorization=Bearer {TOKEN}")),
        "{}",
        modern.requests()
    );
    // The same endpoint declared `sse` (Claude Code) is reached over legacy SSE.
    let doc =
        json!({"mcpServers": {"old": {"type": "sse", "url": format!("{}/sse", legacy.base)}}});
    let r = s.call("servers/load", json!({"json": doc}));
    assert_eq!(r["added"][0]["state"], "ready", "{r}");
    assert_eq!(r["added"][0]["transport"], "sse");
    assert_eq!(r["added"][0]["protocolVersion"], "2024-11-05");
    let listing = s.call("servers/list", json!({}));
    assert!(!listing.to_string().contains(TOKEN), "{listing}");
    let tools = s.call("tools/list", json!({"servers": ["modern", "old"]}));
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["server"] == "modern"),
        "{tools}"
    );
}

/// The issue's example: approve a config, add `inheritEnv` naming a host variable, quote the old
/// digest back — refused, and the new request shows the name. Every spelling binds the same way.
#[test]
fn inherit_env_added_after_approval_is_refused() {
    let mut s = Sidecar::spawn_with(&[], &[("SOME_HOST_SECRET", "host-value-0123456789")]);
    s.initialize(json!({"requireTrust": true}));
    let approved = fixture(&[]);
    let (code, e) = s.error_of("servers/add", json!({"name": "fx", "config": approved}));
    assert_eq!(code, "TRUST_REQUIRED", "{e}");
    assert_eq!(e["data"]["inheritEnv"], json!([]), "{e}");
    let digest = e["data"]["digest"].clone();

    let mut edited = approved.clone();
    edited["inheritEnv"] = json!(["SOME_HOST_SECRET"]);
    let (code, e) = s.error_of(
        "servers/add",
        json!({"name": "fx", "config": edited, "trust": digest}),
    );
    assert_eq!(
        code, "TRUST_REQUIRED",
        "the old digest started an edited config: {e}"
    );
    assert_eq!(e["data"]["inheritEnv"], json!(["SOME_HOST_SECRET"]), "{e}");
    assert_ne!(e["data"]["digest"], digest);
    assert_eq!(s.call("servers/list", json!({}))["servers"], json!([]));

    // The snake_case spelling is the same field: the same request, the same digest.
    let new_digest = e["data"]["digest"].clone();
    let mut snake = approved.clone();
    snake["inherit_env"] = json!(["SOME_HOST_SECRET"]);
    let (_, e) = s.error_of("servers/add", json!({"name": "fx", "config": snake}));
    assert_eq!(e["data"]["digest"], new_digest, "{e}");
    let status = s.call(
        "servers/add",
        json!({"name": "fx", "config": snake, "trust": new_digest}),
    );
    assert_eq!(status["state"], "ready", "{status}");

    // The tools policy binds too: a filter added after approval is a new launch config.
    let mut filtered = edited.clone();
    filtered["excludeTools"] = json!(["exit"]);
    let (code, e) = s.error_of(
        "servers/add",
        json!({"name": "fy", "config": filtered, "trust": new_digest}),
    );
    assert_eq!(code, "TRUST_REQUIRED", "{e}");
    assert_eq!(e["data"]["excludeTools"], json!(["exit"]), "{e}");
}

/// `servers/load` of a VS Code workspace: the env file is listed (path, names; never a value), an
/// env file outside the workspace and a URL at a cloud-metadata address are warned about, and a
/// change to the env file's contents makes the old approval void.
#[test]
fn load_binds_env_files_and_warns_about_risky_places() {
    const VALUE: &str = "env-file-value-0123456789";
    let root = crate::support::temp_dir("trust-envfile");
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join(".vscode")).unwrap();
    std::fs::write(ws.join("app.env"), format!("APP_KEY={VALUE}\n")).unwrap();
    std::fs::write(root.join("outside.env"), "OTHER=1\n").unwrap();
    let command = fixture(&[])["command"].clone();
    let doc = json!({"servers": {
        "inside": {"type": "stdio", "command": command, "envFile": "${workspaceFolder}/app.env"},
        "outside": {"type": "stdio", "command": command, "envFile": "../../outside.env"},
        "meta": {"type": "http", "url": "http://169.254.169.254/latest/meta-data/"},
    }});
    let file = ws.join(".vscode").join("mcp.json");
    std::fs::write(&file, doc.to_string()).unwrap();
    let mut s = Sidecar::initialized(json!({"requireTrust": true}));
    let load = |s: &mut Sidecar, trust: Value| {
        s.call(
            "servers/load",
            json!({"path": file.display().to_string(), "trust": trust}),
        )
    };
    let r = load(&mut s, json!({}));
    // The env file outside the workspace is a warning in the answer too, for a host that does not
    // gate trust (the trust request below warns as well).
    let diagnostics = r["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{r}");
    assert_eq!(diagnostics[0]["severity"], "warning", "{r}");
    assert_eq!(diagnostics[0]["kind"], "path-escape", "{r}");
    assert_eq!(diagnostics[0]["server"], "outside", "{r}");
    assert_eq!(diagnostics[0]["path"], "servers.outside.envFile", "{r}");
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert!(
        message.contains("outside.env` outside the config's folder"),
        "{r}"
    );
    assert!(
        !r.to_string().contains(VALUE),
        "an env file value was shown: {r}"
    );
    let request = |r: &Value, name: &str| -> Value {
        r["trustRequired"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}: {r}"))
    };
    let warnings = |t: &Value| t["warnings"].to_string();
    let inside = request(&r, "inside");
    let real_ws = std::fs::canonicalize(&ws).unwrap();
    assert_eq!(
        inside["envFiles"][0]["path"],
        real_ws.join("app.env").display().to_string(),
        "{inside}"
    );
    assert_eq!(inside["envFiles"][0]["names"], json!(["APP_KEY"]));
    assert_eq!(inside["envNames"], json!(["APP_KEY"]));
    assert_eq!(inside["warnings"], json!([]), "{inside}");
    let outside = request(&r, "outside");
    assert!(
        warnings(&outside).contains("outside the config's folder"),
        "{outside}"
    );
    let meta = request(&r, "meta");
    assert!(warnings(&meta).contains("cloud-metadata"), "{meta}");
    assert_eq!(meta["transport"], "http");

    // The env file changes after approval: the old digest no longer starts the server.
    let approved = inside["digest"].clone();
    std::fs::write(ws.join("app.env"), "APP_KEY=another-value-9876543210\n").unwrap();
    let r = load(&mut s, json!({"inside": approved}));
    assert_eq!(r["added"], json!([]), "{r}");
    let again = request(&r, "inside");
    assert_ne!(again["digest"], approved, "{again}");
    // Approved as it is now, it starts.
    let r = load(&mut s, json!({"inside": again["digest"]}));
    assert_eq!(r["added"][0]["name"], "inside", "{r}");
    assert_eq!(r["added"][0]["state"], "ready", "{r}");
    let _ = std::fs::remove_dir_all(&root);
}

/// `resourcesAsTools` and `pinTools` change what the model is shown, so the trust request shows
/// them and the digest binds them: an approval of the config without them does not start the
/// config with them. `supportsParallel` only changes how calls are sent: the digest leaves it.
#[test]
fn resources_as_tools_and_pins_are_bound_serial_calls_are_not() {
    let mut s = Sidecar::initialized(json!({"requireTrust": true}));
    let digest_of = |s: &mut Sidecar, config: Value| {
        let (code, e) = s.error_of("servers/add", json!({"name": "fx", "config": config}));
        assert_eq!(code, "TRUST_REQUIRED", "{e}");
        e["data"].clone()
    };
    let plain = digest_of(&mut s, fixture(&[]));
    assert!(plain.get("resourcesAsTools").is_none() && plain.get("pinTools").is_none());
    let mut shown = fixture(&[]);
    shown["resources_as_tools"] = json!(true);
    shown["pinTools"] = json!(false);
    let data = digest_of(&mut s, shown.clone());
    assert_eq!(
        (&data["resourcesAsTools"], &data["pinTools"]),
        (&json!(true), &json!(false))
    );
    assert_ne!(data["digest"], plain["digest"]);
    let (code, _) = s.error_of(
        "servers/add",
        json!({"name": "fx", "config": shown, "trust": plain["digest"]}),
    );
    assert_eq!(
        code, "TRUST_REQUIRED",
        "the plain approval does not cover it"
    );
    let mut serial = fixture(&[]);
    serial["supportsParallel"] = json!(false);
    assert_eq!(digest_of(&mut s, serial.clone())["digest"], plain["digest"]);
    let status = s.call(
        "servers/add",
        json!({"name": "fx", "config": serial, "trust": plain["digest"]}),
    );
    assert_eq!(status["state"], "ready");
}

/// A hostile repository under `requireTrust`: configs whose one server has far more args than a
/// command line holds, and more config bytes than one load reads. Each gets one `too-large` error
/// naming its bound, nothing reaches the trust gate, the answer stays small, and the sane
/// repository beside them still gets its trust request.
#[test]
fn a_hostile_repository_gets_one_error_per_bound_and_a_small_answer() {
    let root = crate::support::temp_dir("trust-hostile");
    let args = serde_json::to_string(&vec!["a"; 1_300_000]).unwrap();
    for i in 0..4 {
        let repo = root.join(format!("r{i}"));
        std::fs::create_dir_all(&repo).unwrap();
        let doc = format!(r#"{{"mcpServers": {{"s{i}": {{"command": "sh", "args": {args}}}}}}}"#);
        std::fs::write(repo.join(".mcp.json"), doc).unwrap();
    }
    let sane = root.join("a-sane");
    std::fs::create_dir_all(&sane).unwrap();
    let doc = json!({"mcpServers": {"fine": fixture(&[])}});
    std::fs::write(sane.join(".mcp.json"), doc.to_string()).unwrap();

    let mut s = Sidecar::initialized(json!({"requireTrust": true}));
    let id = s.send("servers/load", json!({"path": root.display().to_string()}));
    let answer = s.response(id);
    assert!(
        answer.to_string().len() < 16 * 1024,
        "{} bytes",
        answer.to_string().len()
    );
    let r = &answer["result"];
    let names: Vec<&str> = r["trustRequired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fine"], "{r}");
    let diagnostics = r["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 4, "{r}");
    for d in diagnostics {
        assert_eq!(d["severity"], "error", "{d}");
        assert_eq!(d["kind"], "too-large", "{d}");
    }
    // Three files of 5.2 MB fit in one load's 16 MiB: their args are refused by count; the
    // fourth is not read at all.
    let args_errors = diagnostics
        .iter()
        .filter(|d| {
            d["message"]
                .as_str()
                .unwrap()
                .contains("1300000 items; the limit is 1024")
        })
        .count();
    assert_eq!(args_errors, 3, "{r}");
    assert!(diagnostics[3]["message"]
        .as_str()
        .unwrap()
        .contains("16777216 bytes together"));
    let _ = std::fs::remove_dir_all(&root);
}
