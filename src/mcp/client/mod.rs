//! The MCP client session, [`Client`], one file per concern; every file but `kind` holds an
//! `impl Client` block:
//! - `session`: the type and its options; `connect`, `handshake`, `server_name`, `list_tools`,
//!   `ping`, `roots_list_changed`, `close`; how a request goes out and ends exactly once
//!   (`request_until`, `send_and_wait` on the legacy and modern wire, the in-flight guard),
//!   `notify`, `outcome`, `upstream_error`, `reply_outcome` and the errors it names.
//! - `kind`: [`RequestKind`](kind::RequestKind) (the setting that bounds each request, its
//!   timeout's code), how long a request may wait and why it ended unanswered.
//! - `negotiate`: `negotiate`, the start in the chosen era (`initialize`, `server/discover`).
//! - `call`: `call_tool`, `call_tool_with` (progress, trace context), `call_error`.
//! - `tasks`: `call_tool_as_task` (a tool that must run as a task, polled to its end).
//! - `input_required`: `answer_input_required` (a 2026-07-28 result asking the client for input).
//! - `listen`: `open_listen`, `watch_resource` (2026-07-28 `subscriptions/listen`).
//! - `surface`: `list_page`, `read_resource`, `subscribe`, `get_prompt`, `complete`,
//!   `set_log_level` (resources, prompts, completion, the log level).

mod call;
mod input_required;
pub mod kind;
mod listen;
mod negotiate;
pub mod session;
pub mod surface;
mod tasks;

pub use session::{Client, ClientOptions, ListedTools};
