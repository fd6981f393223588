//! Server configuration: raw JSON (camelCase canonical, snake_case accepted) in, one validated
//! [`ServerSpec`] out, or a `CONFIG_INVALID` error that names the field.

mod file;
mod remote;
mod server;

pub use file::{load_servers_file, ServersFile};
pub use remote::{HeaderSpec, RemoteKind, RemoteSpec};
pub use server::{validate_server_name, RestartPolicy, ResultPolicy, ServerSpec};
