//! The browser step done by the host (`capabilities: {auth: {}}`): the sidecar asks
//! `auth/authorize {server, url, redirectUri}` while `servers/add` waits, and the test, as the host,
//! fetches the URL from the HTTP fixture's authorization server and answers with where it
//! redirects — or with a forged redirect, or declines; and again when the resource moves to another
//! authorization server.

use serde_json::{json, Value};

use crate::oauth::{config, count, echo, http};
use crate::remote::HttpFixture;
use crate::support::Sidecar;

/// A host that declared `auth`, as the sidecar's `auth/authorize` finds it: the request, and the
/// answer written back.
fn authorize_request(s: &mut Sidecar) -> Value {
    let asked = s.wait_for(|m| m["method"] == "auth/authorize");
    assert!(
        asked["id"].as_str().unwrap().starts_with("sidecar-"),
        "{asked}"
    );
    asked
}

fn answer(s: &mut Sidecar, request: &Value, result: Value) {
    let line = json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string();
    s.write_raw(format!("{line}\n").as_bytes());
}

fn host_with_browser() -> Sidecar {
    Sidecar::initialized(json!({"capabilities": {"auth": {}}, "tokenStorage": "memory"}))
}

/// The host does the browser step: asked `auth/authorize {server, url, redirectUri}` while
/// `servers/add` waits, it opens the URL (here: fetches it, without following the redirect) and
/// hands back where the browser was sent. The start then goes on to `ready`.
#[test]
fn a_host_that_declared_auth_does_the_browser_step_and_the_start_goes_on() {
    let fx = HttpFixture::start(&["--oauth"]);
    let mut s = host_with_browser();
    let add = s.send("servers/add", json!({"name": "o", "config": config(&fx)}));
    let asked = authorize_request(&mut s);
    let params = &asked["params"];
    assert_eq!(params["server"], "o");
    let url = params["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{}/authorize?", fx.base)),
        "{asked}"
    );
    assert!(params["redirectUri"]
        .as_str()
        .unwrap()
        .starts_with("http://127.0.0.1:"));
    let waiting = s.server_changed("o", |st| st["authorizationUrl"].is_string());
    assert_eq!(waiting["state"], "needs_login", "{waiting}");
    assert_eq!(waiting["authorizationUrl"], params["url"], "{waiting}");
    let redirect = http("GET", url).headers["location"].clone();
    answer(
        &mut s,
        &asked,
        json!({"action": "redirected", "redirectUrl": redirect}),
    );
    let status = s.response(add);
    assert_eq!(status["result"]["state"], "ready", "{status}");
    assert_eq!(echo(&mut s, "via host")["result"]["text"], "via host");
    assert_eq!(count(&fx, "token_code"), 1);
}

/// A redirect the host hands back with another `state` is refused: its code never reaches the
/// token endpoint, and the server waits for a login.
#[test]
fn a_redirect_from_the_host_with_another_state_is_refused() {
    let fx = HttpFixture::start(&["--oauth"]);
    let mut s = host_with_browser();
    let add = s.send("servers/add", json!({"name": "o", "config": config(&fx)}));
    let asked = authorize_request(&mut s);
    let redirect =
        http("GET", asked["params"]["url"].as_str().unwrap()).headers["location"].clone();
    let forged = redirect.replace("state=", "state=forged-");
    answer(
        &mut s,
        &asked,
        json!({"action": "redirected", "redirectUrl": forged}),
    );
    let status = s.response(add)["result"].clone();
    assert_eq!(status["state"], "needs_login", "{status}");
    assert_eq!(
        status["lastError"]["data"]["code"], "AUTH_FAILED",
        "{status}"
    );
    assert!(
        status["lastError"]["message"]
            .as_str()
            .unwrap()
            .contains("state"),
        "{status}"
    );
    assert_eq!(count(&fx, "token_code"), 0);
}

/// A host that declines: the server waits in `needs_login` saying so, and nothing asks again
/// until `servers/login`, which asks the host once more.
#[test]
fn a_declined_login_leaves_the_server_needing_one_until_asked_again() {
    let fx = HttpFixture::start(&["--oauth"]);
    let mut s = host_with_browser();
    let add = s.send("servers/add", json!({"name": "o", "config": config(&fx)}));
    let asked = authorize_request(&mut s);
    answer(
        &mut s,
        &asked,
        json!({"action": "declined", "reason": "not now"}),
    );
    let status = s.response(add)["result"].clone();
    assert_eq!(status["state"], "needs_login", "{status}");
    let message = status["lastError"]["message"].as_str().unwrap();
    assert!(message.contains("declined: not now"), "{message}");
    assert_eq!(count(&fx, "authorize"), 0, "nobody opened the URL");
    let login = s.send("servers/login", json!({"name": "o"}));
    let asked = authorize_request(&mut s);
    let redirect =
        http("GET", asked["params"]["url"].as_str().unwrap()).headers["location"].clone();
    answer(
        &mut s,
        &asked,
        json!({"action": "redirected", "redirectUrl": redirect}),
    );
    assert_eq!(s.response(login)["result"]["state"], "ready");
}

/// The host's browser step, answered with where the fixture's authorization endpoint redirects.
fn approve(s: &mut Sidecar) -> Value {
    let asked = authorize_request(s);
    let url = asked["params"]["url"].as_str().unwrap().to_owned();
    let redirect = http("GET", &url).headers["location"].clone();
    answer(
        s,
        &asked,
        json!({"action": "redirected", "redirectUrl": redirect}),
    );
    asked
}

/// The resource moves to another authorization server (SEP-2352): the call that meets the 401
/// asks the host for a login with the new server — registered there anew, the old client never
/// shown to it — and then succeeds; the server stays ready.
#[test]
fn a_move_to_another_authorization_server_registers_there_and_the_call_goes_on() {
    let fx = HttpFixture::start(&["--oauth"]);
    let mut s = host_with_browser();
    let add = s.send("servers/add", json!({"name": "o", "config": config(&fx)}));
    approve(&mut s);
    assert_eq!(s.response(add)["result"]["state"], "ready");
    assert_eq!(echo(&mut s, "before")["result"]["text"], "before");
    let migrated = http("POST", &format!("{}/_oauth/migrate", fx.base));
    assert_eq!(migrated.status, 200);
    let call = s.send(
        "tools/call",
        json!({"name": "mcp__o__echo", "arguments": {"text": "after"}}),
    );
    let asked = approve(&mut s);
    let url = asked["params"]["url"].as_str().unwrap();
    assert!(
        url.starts_with(&format!("{}/as2/authorize?", fx.base)),
        "{url}"
    );
    assert!(url.contains("client_id=as2-client-"), "{url}");
    let answered = s.response(call);
    assert_eq!(answered["result"]["text"], "after", "{answered}");
    assert_eq!(
        count(&fx, "register_as2"),
        1,
        "registered with the new server"
    );
    assert_eq!(
        count(&fx, "foreign_client"),
        0,
        "the old client never shown"
    );
    let status = s.request("servers/list", json!({}))["result"]["servers"][0].clone();
    assert_eq!(status["state"], "ready", "{status}");
}
