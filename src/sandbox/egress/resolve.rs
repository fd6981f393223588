//! From an allowed target to a connected socket: DNS is resolved here, in the proxy (the server
//! has no network of its own), every address is checked after resolution, and the connection goes
//! to an address that passed, never to the name again — so a name that resolves to 127.0.0.1,
//! at once or on a second lookup, cannot reach the sidecar's own ports.

use std::net::{IpAddr, SocketAddr};

use tokio::net::TcpStream;
use tokio::time::timeout;

use super::address::internal_class;
use super::options::EgressOptions;
use super::patterns::{Permit, ALLOW_KEY};
use super::target::{Host, Target};

/// Why an allowed target was not reached.
#[derive(Debug)]
pub(super) enum Unreached {
    /// The name resolved only to addresses it may not reach (answered 403).
    Refused(String),
    /// DNS or the connection failed (answered 502).
    Failed(String),
}

pub(super) async fn connect(
    target: &Target,
    permit: Permit,
    options: &EgressOptions,
) -> Result<TcpStream, Unreached> {
    let within = options.connect_timeout;
    let work = async {
        let addresses = resolve(target, options).await?;
        let reachable = checked(target, permit, &addresses)?;
        let mut last = None;
        for address in reachable {
            match TcpStream::connect(address).await {
                Ok(stream) => return Ok(stream),
                Err(e) => last = Some(format!("{address}: {e}")),
            }
        }
        Err(Unreached::Failed(format!(
            "cannot connect to `{target}` ({})",
            last.unwrap_or_default()
        )))
    };
    timeout(within, work).await.unwrap_or_else(|_| {
        Err(Unreached::Failed(format!(
            "`{target}` not resolved and connected within {} s (limit EGRESS_CONNECT_TIMEOUT)",
            within.as_secs_f64()
        )))
    })
}

async fn resolve(target: &Target, options: &EgressOptions) -> Result<Vec<SocketAddr>, Unreached> {
    let name = match &target.host {
        Host::Ip(ip) => return Ok(vec![SocketAddr::new(*ip, target.port)]),
        Host::Name(name) => name,
    };
    if let Some(fixed) = options.resolve.get(name) {
        return Ok(fixed
            .iter()
            .map(|ip| SocketAddr::new(*ip, target.port))
            .collect());
    }
    let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), target.port))
        .await
        .map_err(|e| Unreached::Failed(format!("cannot resolve `{name}`: {e}")))?
        .collect();
    if found.is_empty() {
        return Err(Unreached::Failed(format!("`{name}` has no address")));
    }
    Ok(found)
}

/// The addresses the target may be reached at: all of them when the pattern grants internal
/// addresses (an IP literal, `localhost`), else the public ones; none is a refusal naming the
/// first address it had and its class.
fn checked(
    target: &Target,
    permit: Permit,
    addresses: &[SocketAddr],
) -> Result<Vec<SocketAddr>, Unreached> {
    if permit.internal_addresses {
        return Ok(addresses.to_vec());
    }
    let public: Vec<SocketAddr> = addresses
        .iter()
        .copied()
        .filter(|a| internal_class(a.ip()).is_none())
        .collect();
    match (public.is_empty(), addresses.first()) {
        (false, _) | (true, None) => Ok(public),
        (true, Some(first)) => {
            let ip: IpAddr = first.ip();
            let class = internal_class(ip).unwrap_or("internal");
            let literal = SocketAddr::new(ip, target.port);
            Err(Unreached::Refused(format!(
                "`{target}` resolves to {ip}, a {class} address, which a host name may not reach; \
                 to allow it, list the address itself (`{literal}`) in `{ALLOW_KEY}`"
            )))
        }
    }
}
