//! A server's environment and working directory: an allowlisted base, the sidecar's secrets kept
//! out unless named in `inheritEnv`, `env` from the config on top, and `cwd` honoured.

use serde_json::{json, Value};

use crate::support::{fixture, temp_dir, Sidecar};

/// A sidecar whose own environment holds a secret the servers must not see by default.
fn sidecar_with_secret() -> Sidecar {
    let mut s = Sidecar::spawn_with(&[], &[("SECRET_TOKEN", "s3cr3t")]);
    s.call("initialize", json!({"protocolVersion": 1}));
    s
}

/// The `environment` tool's report (`{env, pid, cwd}`) from server `name` added with `config`.
fn environment(s: &mut Sidecar, name: &str, config: Value) -> Value {
    let status = s.add(name, config);
    assert_eq!(status["state"], "ready", "{status}");
    let r = s.call(
        "tools/call",
        json!({"name": format!("mcp__{name}__environment")}),
    );
    r["structuredContent"].clone()
}

#[test]
fn base_environment_passes_but_sidecar_secrets_do_not() {
    let mut s = sidecar_with_secret();
    let report = environment(&mut s, "fx", fixture(&[]));
    let env = &report["env"];
    assert_eq!(
        env["PATH"].as_str(),
        std::env::var("PATH").ok().as_deref(),
        "{env}"
    );
    assert_eq!(
        env["HOME"].as_str(),
        std::env::var("HOME").ok().as_deref(),
        "{env}"
    );
    assert!(
        env.get("SECRET_TOKEN").is_none(),
        "the sidecar's secret leaked to a server: {env}"
    );
    assert!(
        env.get("MCP_SIDECAR_LOG").is_none(),
        "non-allowlisted variable leaked: {env}"
    );
}

#[test]
fn config_env_is_set_for_the_server() {
    let mut s = sidecar_with_secret();
    let mut config = fixture(&[]);
    config["env"] = json!({"FIXTURE_MODE": "testing", "PATH_EXTRA": "a b=c"});
    let env = environment(&mut s, "fx", config)["env"].clone();
    assert_eq!(env["FIXTURE_MODE"], "testing", "{env}");
    assert_eq!(env["PATH_EXTRA"], "a b=c", "{env}");
    assert!(env.get("SECRET_TOKEN").is_none(), "{env}");
}

#[test]
fn inherit_env_passes_a_named_sidecar_variable() {
    let mut s = sidecar_with_secret();
    let mut config = fixture(&[]);
    config["inheritEnv"] = json!(["SECRET_TOKEN"]);
    let env = environment(&mut s, "fx", config)["env"].clone();
    assert_eq!(env["SECRET_TOKEN"], "s3cr3t", "{env}");
    // Only the named variable: the other server still does not see it.
    let other = environment(&mut s, "plain", fixture(&[]))["env"].clone();
    assert!(other.get("SECRET_TOKEN").is_none(), "{other}");
}

#[test]
fn config_env_overrides_an_inherited_value() {
    let mut s = sidecar_with_secret();
    let mut config = fixture(&[]);
    config["inheritEnv"] = json!(["SECRET_TOKEN"]);
    config["env"] = json!({"SECRET_TOKEN": "from-config"});
    let env = environment(&mut s, "fx", config)["env"].clone();
    assert_eq!(env["SECRET_TOKEN"], "from-config", "{env}");
}

#[test]
fn cwd_config_sets_the_working_directory() {
    let mut s = Sidecar::initialized(json!({}));
    let dir = temp_dir("cwd");
    let mut config = fixture(&[]);
    config["cwd"] = json!(dir);
    let report = environment(&mut s, "fx", config);
    let reported = std::path::PathBuf::from(report["cwd"].as_str().unwrap());
    assert_eq!(
        reported.canonicalize().unwrap(),
        dir.canonicalize().unwrap(),
        "{report}"
    );
}

#[test]
fn missing_cwd_fails_the_start_naming_the_directory() {
    let mut s = Sidecar::initialized(json!({}));
    let dir = temp_dir("cwd-missing").join("does-not-exist");
    let mut config = fixture(&[]);
    config["cwd"] = json!(dir);
    let status = s.add("fx", config);
    assert_eq!(status["state"], "error", "{status}");
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(
        message.contains("does not exist") && message.contains("does-not-exist"),
        "{status}"
    );
}
