//! What a session knows of MCP tasks before any call (see [`super::tasks`] for running one): the
//! `tasks` capability the client declares, whether a tool must run as a task, and the wake-ups
//! of the tasks being polled (the reader routes `notifications/tasks/status` here).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::sync::Notify;

use super::handshake::Handshake;

/// Whether a call of `tool` (its definition as the server listed it) must be a task: the tool
/// requires it and the server declared task-augmented `tools/call`.
pub fn runs_as_task(handshake: &Handshake, tool: &Value) -> bool {
    server_runs_tasks(handshake)
        && tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
            == Some("required")
}

/// Whether the server takes `tools/call` as a task at all (its `tasks.requests.tools.call`
/// capability): the cheap check a call makes before looking at its tool's definition.
pub fn server_runs_tasks(handshake: &Handshake) -> bool {
    // Member by member, not `pointer`: every call asks, and a pointer builds a string per step.
    handshake
        .capabilities
        .get("tasks")
        .and_then(|tasks| tasks.get("requests"))
        .and_then(|requests| requests.get("tools"))
        .and_then(|tools| tools.get("call"))
        .is_some_and(Value::is_object)
}

/// Adds the client's `tasks` capability to `capabilities` (the `initialize` params'): known, with
/// nothing the client receives as a task.
pub fn declare_client_capability(capabilities: &mut Value) {
    if let Value::Object(map) = capabilities {
        map.insert("tasks".into(), json!({}));
    }
}

/// Wake-ups of the tasks being polled, by task id: the reader routes each
/// `notifications/tasks/status` here so the poller asks at once instead of at its next interval.
#[derive(Default)]
pub struct TaskWakers {
    routes: Mutex<HashMap<String, Arc<Notify>>>,
}

impl TaskWakers {
    /// `notifications/tasks/status`: wakes the poller of its task; false when nobody polls it.
    pub fn route(&self, params: Option<&Value>) -> bool {
        let Some(id) = params.and_then(|p| p.get("taskId")).and_then(Value::as_str) else {
            return false;
        };
        match self.lock().get(id) {
            Some(waker) => {
                // A permit is kept when the poller is not waiting yet: no wake-up is lost.
                waker.notify_one();
                true
            }
            None => false,
        }
    }

    /// The session ended: every poller wakes, and its next request fails with the reason at once
    /// instead of after its poll interval.
    pub fn wake_all(&self) {
        for waker in self.lock().values() {
            waker.notify_one();
        }
    }

    /// The wake-up route of task `id`, for as long as the returned value lives.
    pub(super) fn watch(self: &Arc<Self>, id: &str) -> Waking {
        let notify = Arc::new(Notify::new());
        self.lock().insert(id.to_owned(), Arc::clone(&notify));
        Waking {
            table: Arc::clone(self),
            id: id.to_owned(),
            notify,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        // A poisoned lock is still consistent: every critical section is one map operation.
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The wake-up route of one task being polled; dropping it ends the route.
pub(super) struct Waking {
    table: Arc<TaskWakers>,
    id: String,
    /// Notified by each status notification of the task, and when the session ends.
    pub(super) notify: Arc<Notify>,
}

impl Drop for Waking {
    fn drop(&mut self) {
        self.table.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handshake(capabilities: Value) -> Handshake {
        Handshake {
            era: super::super::handshake::Era::Stateful,
            protocol_version: "2025-11-25".into(),
            server_info: Value::Null,
            capabilities,
            instructions: None,
        }
    }

    #[test]
    fn only_a_required_tool_on_a_server_running_tool_tasks_is_a_task() {
        let tasks = handshake(json!({"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}));
        let plain = handshake(json!({"tools": {}, "tasks": {"list": {}}}));
        let required = json!({"name": "t", "execution": {"taskSupport": "required"}});
        let optional = json!({"name": "t", "execution": {"taskSupport": "optional"}});
        assert!(runs_as_task(&tasks, &required));
        assert!(!runs_as_task(&tasks, &optional));
        assert!(!runs_as_task(&tasks, &json!({"name": "t"})));
        assert!(!runs_as_task(&plain, &required));
    }

    #[test]
    fn the_client_declares_tasks_with_nothing_it_receives() {
        let mut capabilities = json!({"roots": {}});
        declare_client_capability(&mut capabilities);
        assert_eq!(capabilities, json!({"roots": {}, "tasks": {}}));
    }

    #[tokio::test]
    async fn a_status_notification_wakes_only_its_own_poller() {
        let table = Arc::new(TaskWakers::default());
        let waking = table.watch("a");
        assert!(!table.route(Some(&json!({"taskId": "b", "status": "completed"}))));
        assert!(table.route(Some(&json!({"taskId": "a", "status": "completed"}))));
        // The permit was kept: the wait that starts after the notification ends at once.
        waking.notify.notified().await;
        drop(waking);
        assert!(!table.route(Some(&json!({"taskId": "a"}))));
    }
}
