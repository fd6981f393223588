//! The two checks every request passes before a byte leaves: the allow list (by the name or
//! address the request gives) and, once resolved, the address check; each failure is the answer
//! to send back (403 naming the host and `sandbox.network.allow`, or 502).

use hyper::{Response, StatusCode};
use tokio::net::TcpStream;

use super::answers::{text, ProxyBody};
use super::patterns::ALLOW_KEY;
use super::resolve::{connect, Unreached};
use super::shared::Shared;
use super::target::Target;

/// A connection to `target` if the allow list and the address check let it through.
pub(super) async fn reach(
    shared: &Shared,
    target: &Target,
) -> Result<TcpStream, Response<ProxyBody>> {
    let Some(permit) = shared.allow.permits(target) else {
        let why = format!("`{target}` is not in `{ALLOW_KEY}`");
        shared.refused(target, &why);
        return Err(refusal(shared, &format!("{why}; add it there to allow it")));
    };
    match connect(target, permit, &shared.options).await {
        Ok(stream) => Ok(stream),
        Err(Unreached::Refused(why)) => {
            shared.refused(target, &why);
            Err(refusal(shared, &why))
        }
        Err(Unreached::Failed(why)) => {
            shared.failed(target, &why);
            Err(text(
                StatusCode::BAD_GATEWAY,
                format!("egress proxy of server `{}`: {why}", shared.server),
            ))
        }
    }
}

fn refusal(shared: &Shared, why: &str) -> Response<ProxyBody> {
    text(
        StatusCode::FORBIDDEN,
        format!("egress proxy of server `{}`: refused: {why}", shared.server),
    )
}
