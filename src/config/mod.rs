//! Server configuration: raw JSON (camelCase canonical, snake_case accepted) in, one validated
//! [`ServerSpec`] out, or a `CONFIG_INVALID` error that names the field. Every host's config files
//! (dialects) are read into that canonical JSON plus diagnostics ([`load`]).

pub mod diagnostics;
pub mod dialects;
pub mod expand;
pub mod extras;
mod file;
mod invalid;
pub mod load;
mod oauth;
mod package;
mod package_command;
pub mod paths;
mod protocol;
mod raw;
mod remote;
mod sandbox;
mod server;
mod server_fields;
pub mod source;
mod strict;

pub use dialects::Dialect;
pub use extras::Extras;
pub use file::{load_servers_file, ServersFile};
pub use oauth::{is_loopback_host, oauth_field_names, Grant, OAuthSpec};
pub use package::{PackageRegistry, PackageSpec, PinnedPublisher};
pub use package_command::{package_in_command, CommandPackage};
pub use protocol::ProtocolChoice;
pub use raw::{field_names, RestartPolicy, ResultPolicy};
pub use remote::{HeaderSpec, RemoteKind, RemoteSpec};
pub use sandbox::{parse_sandbox, sandbox_field_names};
pub use server::{shell_quote, validate_server_name, ServerSpec};
pub use source::Source;
