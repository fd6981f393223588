//! The sandbox on Windows: what it reports, and the Job Object holding a server's tree to its
//! process limit. Files and network are not confined there, so `strict` is refused naming them;
//! under `allowWeaker` the job's limits hold. Wine does not enforce job limits: these run on the
//! Windows runner (`.github/scripts/process-tests`).

use serde_json::{json, Value};

use crate::support::*;

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn strict_is_refused_naming_what_windows_cannot_confine() {
    let mut s = Sidecar::initialized(json!({}));
    let refused = s.add(
        "boxed",
        with_fields(fixture(&[]), json!({"sandbox": "strict"})),
    );
    assert_eq!(refused["state"], "error", "{refused}");
    assert!(refused.get("pid").is_none(), "nothing ran: {refused}");
    let error = &refused["lastError"];
    assert_eq!(error["data"]["code"], "SANDBOX_DENIED", "{error}");
    let level = &error["data"]["sandbox"];
    assert_eq!(
        names(&level["missing"]),
        ["appcontainer-fs", "appcontainer-net", "handle-limit"],
        "{level}"
    );
    assert_eq!(
        names(&level["enforced"]),
        ["job-memory", "job-processes"],
        "{level}"
    );
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("sandbox.allowWeaker"), "{message}");
}

#[test]
fn the_job_holds_a_server_without_spawn_to_its_one_process() {
    let mut s = Sidecar::initialized(json!({}));
    // The fixture starts a grandchild before it answers; a job of one process refuses it, and the
    // fixture exits saying so.
    let alone = with_fields(
        fixture(&["--grandchild"]),
        json!({"restart": "never",
            "sandbox": {"allowWeaker": true, "processes": {"spawn": false}}}),
    );
    let status = s.add("alone", alone);
    assert_ne!(status["state"], "ready", "{status}");
    let tail = status["stderrTail"].as_str().unwrap_or_default();
    assert!(tail.contains("spawn grandchild failed"), "{status}");

    // Room for the grandchild (and a console host Windows may start for it): the same server
    // starts, its level naming the job's limits.
    let roomy = with_fields(
        fixture(&["--grandchild"]),
        json!({"sandbox": {"allowWeaker": true, "processes": {"max": 8}}}),
    );
    let status = s.add("roomy", roomy);
    assert_eq!(status["state"], "ready", "{status}");
    let enforced = names(&status["sandbox"]["enforced"]);
    assert!(
        enforced.contains(&"job-processes") && enforced.contains(&"job-memory"),
        "{status}"
    );
    assert!(
        names(&status["sandbox"]["missing"]).contains(&"appcontainer-fs"),
        "{status}"
    );
}
