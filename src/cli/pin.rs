//! `mcp-sidecar pin SERVER`: the `package` block that pins a server's package by hash, printed for
//! the person to paste into the config in place of its `command` and package argument. The server's
//! command names the package (`npx -y name@version`, `uvx name==version`; without a version, the
//! latest); so does a server that has a `package` block already (its pin is fetched afresh, to
//! compare). The hash printed is the registry's now: trust on first use, made explicit. Exit 0
//! with the block on stdout; 2 when the server runs no registry package; 3 when the files do not
//! define the server; 1 when the registry cannot be asked.

use serde_json::json;

use super::exit::Exit;
use super::output::{pretty, stderr_line, stdout, usage};
use super::run::Context;
use super::selection::select;
use crate::config::package_in_command;
use crate::package::{pin_block, PinRequest};

pub(crate) struct PinArgs {
    pub server: String,
}

pub(crate) async fn run(context: &Context, args: PinArgs) -> Exit {
    let selection = match select(&context.sources, std::slice::from_ref(&args.server)).await {
        Ok(s) => s,
        Err(e) => return usage(&e.to_string()),
    };
    for why in &selection.unknown {
        stderr_line(&format!("mcp-sidecar: {why}"));
    }
    let spec = match super::selection::first_spec(&selection.servers, &args.server) {
        Ok(spec) => spec,
        Err(exit) => return exit,
    };
    let request = match (&spec.package, package_in_command(&spec.command, &spec.args)) {
        (Some(p), _) => PinRequest {
            registry: p.registry,
            name: p.name.clone(),
            version: Some(p.version.clone()),
        },
        (None, Some(found)) => PinRequest {
            registry: found.registry,
            name: found.name,
            version: found.version,
        },
        (None, None) => {
            return usage(&format!(
                "server `{}` runs no registry package (`npx -y name@version`, `uvx name==version`)",
                args.server
            ))
        }
    };
    match super::run::until_stopped(&context.stop, pin_block(&request)).await {
        None => Exit::Interrupted,
        Some(Ok(block)) => {
            stdout(&pretty(&json!({ "package": block })));
            let served = block["integrity"].as_str().or(block["sha256"].as_str());
            if let Some(pinned) = spec
                .package
                .as_ref()
                .filter(|p| Some(p.pin.as_str()) != served)
            {
                stderr_line(&format!(
                    "mcp-sidecar: the registry now serves another archive than server `{}` pins ({})",
                    args.server, pinned.pin
                ));
            }
            stderr_line(&format!(
                "the hash above is what the registry serves now; put this `package` block in \
                 server `{}`'s config in place of its `command` (keep the server's own arguments \
                 in `args`)",
                args.server
            ));
            Exit::Ok
        }
        Some(Err(e)) => {
            stderr_line(&format!("mcp-sidecar: {}", e.message));
            Exit::ServerFailed
        }
    }
}
