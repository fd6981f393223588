//! Server configuration: raw JSON (camelCase canonical, snake_case accepted) in, one validated
//! [`ServerSpec`] out, or a `CONFIG_INVALID` error that names the field. Every host's config files
//! (dialects) are read into that canonical JSON plus diagnostics ([`load`]).
//!
//! Its other files:
//! - `diagnostics`: Diagnostics of configuration loading.
//! - `dialects/`: Config dialects.
//! - `expand`: Variable expansion in config strings, per dialect.
//! - `extras`: The sidecar's own config fields beyond the launch spec — tools policy (`includeTools`, …
//! - `file`: Reading config files.
//! - `invalid`: The one error of a server config that does not hold.
//! - `oauth`: The `oauth` object of a remote server's config.
//! - `package`: The `package` object of a stdio server's config.
//! - `package_command`: The registry package an `npx` or `uvx` command line runs (`npx -y name@version`, `uvx …
//! - `paths`: Plugin path containment.
//! - `protocol`: `protocolVersion`.
//! - `raw`: A server config as written, in its serde shape.
//! - `remote`: The remote half of a server config.
//! - `sandbox`: The `sandbox` field of a stdio server's config, read into a `SandboxPolicy`.
//! - `server`: One server's launch configuration and its validation (the serde shape it is read into first is …
//! - `server_fields`: The checks of a server config's fields, one function each (what `super::server` builds a …
//! - `source`: Where a server came from.
//! - `strict`: Strict reading of a config object into a serde-derived struct.

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
