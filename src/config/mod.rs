//! Server configuration: raw JSON (camelCase canonical, snake_case accepted) in, one validated
//! [`ServerSpec`] out, or a `CONFIG_INVALID` error that names the field. Every host's config files
//! (dialects) are read into that canonical JSON plus diagnostics ([`load`]).

pub mod diagnostics;
pub mod dialects;
pub mod expand;
pub mod extras;
mod file;
pub mod load;
pub mod policy;
mod remote;
mod server;
pub mod source;

pub use dialects::Dialect;
pub use extras::Extras;
pub use file::{load_servers_file, ServersFile};
pub use remote::{HeaderSpec, RemoteKind, RemoteSpec};
pub use server::{validate_server_name, RestartPolicy, ResultPolicy, ServerSpec};
pub use source::Source;
