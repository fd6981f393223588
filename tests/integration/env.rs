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
    // The report is a tool result: the secret value is seen only with result masking turned off.
    config["maskSecretsInResults"] = json!(false);
    let env = environment(&mut s, "fx", config)["env"].clone();
    assert_eq!(env["SECRET_TOKEN"], "from-config", "{env}");
}

/// Tool results go to a model provider: secret values of 8 bytes or more are masked in them by
/// default (text and structured content alike), in both spellings of the opt-out.
#[test]
fn secret_values_are_masked_in_tool_results_unless_opted_out() {
    let mut s = sidecar_with_secret();
    let mut config = fixture(&[]);
    config["env"] = json!({"API_TOKEN": "result-secret-12345", "SHORT_TOKEN": "s-1234", "PLAIN": "plain-value-1"});
    let r = s.add("masked", config.clone());
    assert_eq!(r["state"], "ready", "{r}");
    let r = s.call("tools/call", json!({"name": "mcp__masked__environment"}));
    let env = &r["structuredContent"]["env"];
    assert_eq!(env["API_TOKEN"], "***", "{r}");
    // Too short to mask inside ordinary text; not secret by its name.
    assert_eq!(env["SHORT_TOKEN"], "s-1234", "{r}");
    assert_eq!(env["PLAIN"], "plain-value-1", "{r}");
    assert!(!r.to_string().contains("result-secret-12345"), "{r}");
    for (name, key) in [
        ("open", "maskSecretsInResults"),
        ("open_snake", "mask_secrets_in_results"),
    ] {
        let mut config = config.clone();
        config[key] = json!(false);
        assert_eq!(s.add(name, config)["state"], "ready");
        let r = s.call(
            "tools/call",
            json!({"name": format!("mcp__{name}__environment")}),
        );
        assert_eq!(
            r["structuredContent"]["env"]["API_TOKEN"], "result-secret-12345",
            "{key}: {r}"
        );
    }
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
