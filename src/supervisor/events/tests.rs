//! The tests of the coalescing event queue: a storm folds per server and kind, the net tools
//! change, the order of barriers, and a queue nobody receives.

use super::*;
use crate::supervisor::status::ServerState;

fn status(name: &str, generation: u64) -> Event {
    Event::ServerChanged(Box::new(ServerStatus {
        name: name.into(),
        prefix: name.into(),
        source: crate::config::Source::Host,
        state: ServerState::Ready,
        generation,
        command: String::new(),
        transport: "stdio",
        url: None,
        headers: None,
        pid: None,
        protocol_version: None,
        era: None,
        server_info: None,
        instructions: None,
        capabilities: None,
        tools_count: 0,
        started_at: None,
        last_exit: None,
        last_error: None,
        stderr_tail: String::new(),
        restarts: 0,
        next_restart_at: None,
        calls: 0,
        errors: 0,
        p50_latency_ms: None,
        authorization_url: None,
        sandbox: None,
    }))
}

fn tools(fingerprint: &str, added: &[&str], removed: &[&str]) -> Event {
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
    Event::ToolsChanged(Box::new(ToolsChange {
        fingerprint: fingerprint.into(),
        added: names(added),
        removed: names(removed),
        ..ToolsChange::default()
    }))
}

#[test]
fn a_storm_coalesces_to_the_latest_per_server_in_first_queued_order() {
    let (tx, mut rx) = queue();
    let kept = limits::EVENTS_QUEUED_BEFORE_COALESCING as u64;
    for generation in 0..kept {
        tx.send(status("early", generation));
    }
    for generation in 0..10_000 {
        tx.send(status("a", generation));
        tx.send(status("b", generation));
        tx.send(tools(&format!("f{generation}"), &[], &[]));
    }
    for generation in 0..kept {
        assert!(
            matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.generation == generation),
            "kept as is"
        );
    }
    let (ack, mut acked) = oneshot::channel();
    tx.send(Event::Barrier(ack));
    tx.send(status("a", 10_000));
    match rx.try_recv() {
        Some(Event::ServerChanged(s)) => {
            assert_eq!((s.name.as_str(), s.generation), ("a", 9_999))
        }
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.name == "b" && s.generation == 9_999)
    );
    assert!(matches!(rx.try_recv(), Some(Event::ToolsChanged(c)) if c.fingerprint == "f9999"));
    assert!(
        acked.try_recv().is_err(),
        "not acknowledged before it is taken"
    );
    match rx.try_recv() {
        Some(Event::Barrier(ack)) => ack.send(()).unwrap(),
        other => panic!("{other:?}"),
    }
    assert!(matches!(rx.try_recv(), Some(Event::ServerChanged(s)) if s.generation == 10_000));
    assert!(rx.try_recv().is_none());
}

#[test]
fn tools_changes_fold_into_their_net_change() {
    let (tx, mut rx) = queue();
    for i in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
        tx.send(tools(&format!("early{i}"), &[], &[]));
    }
    tx.send(tools("f1", &["x", "y"], &["old"]));
    tx.send(tools("f2", &["old", "z"], &["x"]));
    for _ in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING - 1 {
        assert!(matches!(rx.try_recv(), Some(Event::ToolsChanged(_))));
    }
    match rx.try_recv() {
        Some(Event::ToolsChanged(c)) => {
            assert_eq!(c.fingerprint, "f2");
            assert_eq!(c.added, ["y", "z"]);
            assert!(c.removed.is_empty(), "{:?}", c.removed);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn changed_names_and_withheld_tools_fold_too() {
    let held = |hash: &str| Withheld {
        server: "s".into(),
        tool: "t".into(),
        hash: hash.into(),
    };
    let mut delta = ToolsDelta::new(ToolsChange {
        fingerprint: "f1".into(),
        changed: vec!["a".into(), "gone".into()],
        withheld: vec![held("h1")],
        ..ToolsChange::default()
    });
    delta.then(ToolsChange {
        fingerprint: "f2".into(),
        removed: vec!["gone".into()],
        changed: vec!["b".into()],
        withheld: vec![held("h2")],
        ..ToolsChange::default()
    });
    let c = delta.into_change();
    assert_eq!(c.fingerprint, "f2");
    assert_eq!(c.changed, ["a", "b"], "a removed name is no longer changed");
    assert_eq!(c.removed, ["gone"]);
    assert_eq!(
        c.withheld,
        vec![held("h2")],
        "the latest hash of a held tool"
    );
}

#[test]
fn a_backed_up_queue_folds_list_changes_updates_and_logs_per_server() {
    let (tx, mut rx) = queue();
    for i in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
        tx.send(status("early", i as u64));
    }
    for _ in 0..1000 {
        tx.send(Event::ResourcesChanged { server: "a".into() });
        tx.send(Event::PromptsChanged { server: "a".into() });
        tx.send(Event::ResourceUpdated {
            server: "a".into(),
            uri: Some("x://same".into()),
        });
    }
    for i in 0..1000 {
        tx.send(Event::ResourceUpdated {
            server: "b".into(),
            uri: Some(format!("x://{i}")),
        });
        tx.send(Event::ServerLog(Box::new(ServerLog {
            server: "a".into(),
            level: LogLevel::Info,
            logger: None,
            data: Value::from(i),
        })));
    }
    for _ in 0..limits::EVENTS_QUEUED_BEFORE_COALESCING {
        assert!(matches!(rx.try_recv(), Some(Event::ServerChanged(_))));
    }
    let mut rest = Vec::new();
    while let Some(e) = rx.try_recv() {
        rest.push(e);
    }
    let updates_b: Vec<Option<String>> = rest
        .iter()
        .filter_map(|e| match e {
            Event::ResourceUpdated { server, uri } if server == "b" => Some(uri.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(updates_b.len(), limits::RESOURCE_UPDATES_WAITING_PER_SERVER);
    assert_eq!(
        updates_b.last(),
        Some(&None),
        "the last one stands for the rest"
    );
    let count = |pred: &dyn Fn(&Event) -> bool| rest.iter().filter(|e| pred(e)).count();
    assert_eq!(count(&|e| matches!(e, Event::ResourcesChanged { .. })), 1);
    assert_eq!(count(&|e| matches!(e, Event::PromptsChanged { .. })), 1);
    assert_eq!(
        count(&|e| matches!(e, Event::ResourceUpdated { server, .. } if server == "a")),
        1
    );
    assert_eq!(count(&|e| matches!(e, Event::ServerLog(_))), 0);
    assert!(rest
        .iter()
        .any(|e| matches!(e, Event::LogsDropped { server, count: 1000 } if server == "a")));
    assert!(rest.len() < 30, "{}", rest.len());
}

#[tokio::test]
async fn recv_ends_once_every_sender_is_gone_and_a_discarding_sender_drops_all() {
    let (tx, mut rx) = queue();
    let tx2 = tx.clone();
    tx.send(status("a", 1));
    drop(tx);
    drop(tx2);
    assert!(rx.recv().await.is_some());
    assert!(rx.recv().await.is_none());
    let d = EventSender::discarding();
    let (ack, acked) = oneshot::channel();
    d.send(Event::Barrier(ack));
    assert!(acked.await.is_err(), "released, not held");
}
