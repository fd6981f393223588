//! The one error of a server config that does not hold: CONFIG_INVALID, `config.<field>: <problem>`,
//! with the field (`args[1]`, `env.KEY`, `headers.NAME.value`) in the details. Its own file so that
//! every part of the config (launch spec, remote half, extras) can use it without importing another.

use crate::error::{Error, ErrorCode};

/// CONFIG_INVALID naming `field`.
pub(super) fn invalid(field: &str, problem: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("config.{field}: {problem}"),
    )
    .with("field", field)
}
