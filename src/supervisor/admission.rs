//! Admission of a `servers/add` config: the name, the sidecar's extra fields (tools policy, secret
//! marks), the validated spec, and the trust gate. Nothing is registered or started here; a config
//! that is refused never reaches the registry's table.

use serde_json::Value;

use super::settings::AddOptions;
use crate::config::{extras, validate_server_name, Extras, ServerSpec};
use crate::error::{Error, ErrorCode, Result};
use crate::trust::request::{raw_secrets, Subject};
use crate::trust::secrets::Secrets;

/// A config that passed every check: what a [`super::server::Server`] is built from.
pub(super) struct Admitted {
    pub spec: ServerSpec,
    pub extras: Extras,
    pub secrets: Secrets,
}

/// Parses and checks `config` for server `name`. With `require_trust`, the launch config's digest
/// must be the one the host approved in `options.trust` (TRUST_REQUIRED otherwise, carrying the
/// trust request). Error messages never show a secret value of the config.
pub(super) fn admit(
    name: &str,
    config: &Value,
    options: &AddOptions,
    require_trust: bool,
) -> Result<Admitted> {
    validate_server_name(name)?;
    let (rest, extras) = extras::split(config)?;
    // Until the spec is parsed, its error can only be masked with what the raw config shows.
    let mut spec =
        ServerSpec::from_json(&rest).map_err(|e| raw_secrets(&rest, &extras).mask_error(e))?;
    if let Some(remote) = &mut spec.remote {
        // Headers named in `secretHeaders` are as secret as those marked inline.
        for h in &mut remote.headers {
            h.secret |= extras.secret_names.contains(&h.name);
        }
    }
    // The gate reads the parsed config, the one the server is built from: every spelling of a
    // field reaches the digest the same way, and nothing the server uses is left out of it.
    let subject = Subject::new(&spec, &extras);
    // Every secret of the parsed config (both spellings of every mark, inherited variables, secret
    // expansions, URL credentials): masked in everything below, the trust request included.
    let secrets = Secrets::for_server(&spec, &extras, &crate::config::expand::process_env);
    if require_trust {
        check_trust(name, &subject, options).map_err(|e| secrets.mask_error(e))?;
    }
    Ok(Admitted {
        spec,
        extras,
        secrets,
    })
}

fn check_trust(name: &str, subject: &Subject, options: &AddOptions) -> Result<()> {
    let digest = subject.digest();
    if options.trust.as_deref() == Some(digest.as_str()) {
        return Ok(());
    }
    let request = subject.to_json(options.source, options.plugin_root.as_deref());
    let why = if options.trust.is_some() {
        "the approved digest does not match this launch config"
    } else {
        "this server needs the host's approval before it is spawned"
    };
    let mut e = Error::new(
        ErrorCode::TrustRequired,
        format!("server `{name}`: {why}; approve it with servers/add {{…, trust: \"{digest}\"}}"),
    )
    .with("server", name);
    if let Value::Object(fields) = request {
        e.details.extend(fields);
    }
    Err(e)
}
