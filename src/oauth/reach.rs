//! Which URLs the sidecar fetches on a server's word. Every OAuth URL but the server's own comes
//! from a document the server (or its authorization server) wrote — the challenge's
//! `resource_metadata`, `authorization_servers`, the metadata's endpoints — so a hostile server could
//! point the sidecar at anything it can reach: a cloud metadata service, a router, an admin port on
//! loopback. The rule, decided before a request is sent and again on the addresses a name resolves
//! to when a connection is made (a name that changes its answer in between is refused then):
//!
//! - https, or plain http only to a loopback host for a server that is itself on loopback;
//! - never a link-local, cloud metadata or unroutable address (`0.0.0.0` reaches this machine);
//! - loopback only for a server on loopback, a private range only for a server in a private range;
//! - the server's own origin, its host name and the configured proxies' are the config's word, not
//!   the server's: they are not checked.
//!
//! A refused URL is never connected to, so nothing of what answers there can reach an error.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;
use tokio::sync::OnceCell;

use super::error::AuthError;
use crate::config::is_loopback_host;

/// What kind of network an address is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Public,
    Loopback,
    /// RFC 1918, CGNAT (100.64/10), IPv6 unique local (fc00::/7).
    Private,
    /// 169.254/16, fe80::/10.
    LinkLocal,
    /// The instance metadata services of cloud providers (169.254.169.254 and its kin).
    CloudMetadata,
    /// Unspecified, multicast, broadcast, reserved: nothing a URL should name.
    Unroutable,
}

impl Class {
    fn describe(self) -> &'static str {
        match self {
            Class::Public => "public",
            Class::Loopback => "a loopback address",
            Class::Private => "in a private range",
            Class::LinkLocal => "link-local",
            Class::CloudMetadata => "a cloud metadata service",
            Class::Unroutable => "unroutable (unspecified, multicast or reserved)",
        }
    }
}

/// The class of `ip`; an IPv4-mapped or NAT64 IPv6 address is its IPv4 address's.
pub(super) fn classify(ip: IpAddr) -> Class {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> Class {
    let [a, b, ..] = ip.octets();
    // 169.254.169.254: AWS, GCP, Azure, OCI, DigitalOcean; 169.254.170.2: ECS task credentials;
    // 100.100.100.200: Alibaba Cloud.
    if [
        [169, 254, 169, 254],
        [169, 254, 170, 2],
        [100, 100, 100, 200],
    ]
    .contains(&ip.octets())
    {
        Class::CloudMetadata
    } else if ip.is_loopback() {
        Class::Loopback
    } else if ip.is_link_local() {
        Class::LinkLocal
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        Class::Private
    } else if a == 0 || ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Class::Unroutable
    } else {
        Class::Public
    }
}

fn classify_v6(ip: Ipv6Addr) -> Class {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return classify_v4(v4);
    }
    let segments = ip.segments();
    // 64:ff9b::/96, NAT64: the IPv4 address is the last 32 bits.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [.., hi, lo] = segments;
        return classify_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        Class::CloudMetadata
    } else if ip.is_loopback() {
        Class::Loopback
    } else if ip.is_unspecified() || ip.is_multicast() {
        Class::Unroutable
    } else if segments[0] & 0xffc0 == 0xfe80 {
        Class::LinkLocal
    } else if segments[0] & 0xfe00 == 0xfc00 || segments[0] & 0xffc0 == 0xfec0 {
        Class::Private
    } else {
        Class::Public
    }
}

/// Whether an address of class `target` may be fetched for a server whose own addresses are of
/// the classes `server`.
pub(super) fn allowed(target: Class, server: &[Class]) -> bool {
    match target {
        Class::Public => true,
        Class::Loopback | Class::Private => server.contains(&target),
        Class::LinkLocal | Class::CloudMetadata | Class::Unroutable => false,
    }
}

/// The rule for one server: where it is, and the host names the config (not the server) named.
pub(super) struct Reach {
    server: Url,
    /// Host names that are the config's word: the server's own, the proxies'.
    trusted: Vec<String>,
    /// The classes of the server's own addresses, resolved once.
    server_classes: OnceCell<Vec<Class>>,
}

impl Reach {
    /// The rule for the server at `server`; the proxies are the environment's.
    pub(super) fn new(server: &Url) -> Reach {
        let mut trusted: Vec<String> = server.host_str().map(str::to_owned).into_iter().collect();
        trusted.extend(proxy_hosts());
        for name in &mut trusted {
            name.make_ascii_lowercase();
        }
        Reach {
            server: server.clone(),
            trusted,
            server_classes: OnceCell::new(),
        }
    }

    fn trusts(&self, name: &str) -> bool {
        self.trusted.iter().any(|t| t.eq_ignore_ascii_case(name))
    }

    async fn server_classes(&self) -> &[Class] {
        self.server_classes
            .get_or_init(|| async {
                let port = self.server.port_or_known_default().unwrap_or(443);
                match self.server.host() {
                    Some(url::Host::Ipv4(ip)) => vec![classify_v4(ip)],
                    Some(url::Host::Ipv6(ip)) => vec![classify_v6(ip)],
                    Some(url::Host::Domain(d)) if d.eq_ignore_ascii_case("localhost") => {
                        vec![Class::Loopback]
                    }
                    Some(url::Host::Domain(d)) => tokio::net::lookup_host((d, port))
                        .await
                        .map(|addrs| addrs.map(|a| classify(a.ip())).collect())
                        .unwrap_or_default(),
                    None => Vec::new(),
                }
            })
            .await
    }

    /// `Ok` when `url`, learned from the server, may be fetched; else why not (`AUTH_FAILED`),
    /// decided without connecting to it. A name that does not resolve is let through: the
    /// connection fails on its own, through the same check ([`GuardedResolver`]).
    pub(super) async fn admit(&self, url: &Url, during: &str) -> Result<(), AuthError> {
        let refuse = |why: String| {
            AuthError::failed(format!(
                "{during}: refused to fetch {url}, which the server named: {why}"
            ))
        };
        // The server's own origin (its well-known metadata URIs) is where the config already sends
        // every request, whatever its scheme or address.
        if url.origin() == self.server.origin() {
            return Ok(());
        }
        let server_on_loopback = self.server_classes().await.contains(&Class::Loopback);
        match url.scheme() {
            "https" => {}
            "http" if is_loopback_host(url) && server_on_loopback => {}
            _ => {
                return Err(refuse(
                    "it is not https (plain http only to loopback, for a server on loopback)"
                        .to_owned(),
                ))
            }
        }
        let addresses = match url.host() {
            Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
            Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
            Some(url::Host::Domain(d)) if self.trusts(d) => return Ok(()),
            Some(url::Host::Domain(d)) => {
                let port = url.port_or_known_default().unwrap_or(443);
                match tokio::net::lookup_host((d, port)).await {
                    Ok(addrs) => addrs.map(|a| a.ip()).collect(),
                    Err(_) => return Ok(()),
                }
            }
            None => return Err(refuse("it names no host".to_owned())),
        };
        let server = self.server_classes().await;
        match addresses.iter().find(|ip| !allowed(classify(**ip), server)) {
            Some(ip) => Err(refuse(format!(
                "its address {ip} is {}{}",
                classify(*ip).describe(),
                match classify(*ip) {
                    Class::Loopback | Class::Private => ", and the server is not",
                    _ => "",
                }
            ))),
            None => Ok(()),
        }
    }
}

/// The host names of the proxies the environment sets (reqwest's own variables).
fn proxy_hosts() -> Vec<String> {
    [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ]
    .iter()
    .filter_map(|var| std::env::var(var).ok())
    .filter_map(|value| {
        let value = value.trim();
        let url = if value.contains("://") {
            Url::parse(value)
        } else {
            Url::parse(&format!("http://{value}"))
        };
        url.ok()?.host_str().map(str::to_owned)
    })
    .collect()
}

/// The OAuth clients' resolver: the addresses a name resolves to when a connection is made, minus
/// those [`allowed`] refuses for the server (a name that answered a public address to
/// [`Reach::admit`] and a private one now connects nowhere).
pub(super) struct GuardedResolver(pub Arc<Reach>);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let reach = Arc::clone(&self.0);
        let resolving: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if reach.trusts(&host) {
                return Ok(Box::new(found.into_iter()) as Addrs);
            }
            let server = reach.server_classes().await;
            let kept: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| allowed(classify(a.ip()), server))
                .collect();
            if kept.is_empty() {
                return Err(format!(
                    "{host} resolves to no address the sidecar fetches from on a server's word (link-local, cloud metadata, or a loopback or private one the server is not on)"
                )
                .into());
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        });
        resolving
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ip: &str) -> Class {
        classify(ip.parse().unwrap())
    }

    #[test]
    fn addresses_are_classified() {
        for (ip, want) in [
            ("169.254.169.254", Class::CloudMetadata),
            ("169.254.170.2", Class::CloudMetadata),
            ("100.100.100.200", Class::CloudMetadata),
            ("fd00:ec2::254", Class::CloudMetadata),
            ("::ffff:169.254.169.254", Class::CloudMetadata),
            ("64:ff9b::a9fe:a9fe", Class::CloudMetadata),
            ("169.254.1.1", Class::LinkLocal),
            ("fe80::1", Class::LinkLocal),
            ("127.0.0.1", Class::Loopback),
            ("127.8.9.10", Class::Loopback),
            ("::1", Class::Loopback),
            ("::ffff:127.0.0.1", Class::Loopback),
            ("10.1.2.3", Class::Private),
            ("172.16.0.1", Class::Private),
            ("192.168.1.1", Class::Private),
            ("100.64.0.1", Class::Private),
            ("fd12:3456::1", Class::Private),
            ("0.0.0.0", Class::Unroutable),
            ("::", Class::Unroutable),
            ("224.0.0.1", Class::Unroutable),
            ("255.255.255.255", Class::Unroutable),
            ("8.8.8.8", Class::Public),
            ("100.128.0.1", Class::Public),
            ("2606:4700::1111", Class::Public),
        ] {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

    #[test]
    fn a_server_opens_only_its_own_network() {
        let public = [Class::Public];
        let loopback = [Class::Loopback];
        let private = [Class::Private];
        assert!(allowed(Class::Public, &public));
        assert!(!allowed(Class::Loopback, &public));
        assert!(!allowed(Class::Private, &public));
        assert!(allowed(Class::Loopback, &loopback));
        assert!(
            !allowed(Class::Private, &loopback),
            "loopback is not a private range"
        );
        assert!(allowed(Class::Private, &private));
        assert!(!allowed(Class::Loopback, &private));
        for never in [Class::LinkLocal, Class::CloudMetadata, Class::Unroutable] {
            for server in [&public[..], &loopback, &private, &[never]] {
                assert!(!allowed(never, server), "{never:?} for {server:?}");
            }
        }
    }

    async fn admitted(server: &str, url: &str) -> Result<(), String> {
        let reach = Reach::new(&Url::parse(server).unwrap());
        reach
            .admit(&Url::parse(url).unwrap(), "fetching")
            .await
            .map_err(|e| e.to_string())
    }

    /// Literal addresses and schemes: decided without resolving or connecting anything.
    #[tokio::test]
    async fn urls_are_refused_before_any_connection() {
        let local = "http://127.0.0.1:3000/mcp";
        assert!(admitted(local, "http://127.0.0.1:4000/as").await.is_ok());
        assert!(admitted(local, "https://[::1]:4000/as").await.is_ok());
        assert!(admitted(local, "https://8.8.8.8/as").await.is_ok());
        for (url, why) in [
            ("http://169.254.169.254/latest/meta-data", "not https"),
            (
                "https://169.254.169.254/latest/meta-data",
                "a cloud metadata service",
            ),
            ("https://[fe80::1]/x", "link-local"),
            (
                "https://10.1.2.3/x",
                "in a private range, and the server is not",
            ),
            ("https://0.0.0.0:3000/x", "unroutable"),
            ("http://10.1.2.3/x", "not https"),
            ("file:///etc/passwd", "not https"),
        ] {
            let e = admitted(local, url).await.unwrap_err();
            assert!(e.contains(why) && e.contains("refused"), "{url}: {e}");
        }
        let public = "https://203.0.113.7/mcp";
        for url in [
            "https://127.0.0.1/as",
            "http://127.0.0.1/as",
            "https://10.0.0.1/as",
        ] {
            assert!(admitted(public, url).await.is_err(), "{url}");
        }
        let plain = "http://10.0.0.5/mcp";
        assert!(
            admitted(
                plain,
                "http://10.0.0.5/.well-known/oauth-protected-resource"
            )
            .await
            .is_ok(),
            "the server's own origin, as configured"
        );
        assert!(admitted(plain, "http://10.0.0.5:8080/as").await.is_err());
        let private = "https://10.0.0.5/mcp";
        assert!(admitted(private, "https://10.0.0.6/as").await.is_ok());
        assert!(admitted(private, "https://127.0.0.1/as").await.is_err());
        assert!(
            admitted(private, "http://localhost/as").await.is_err(),
            "plain http only for a server on loopback"
        );
    }

    /// At connection time, a name is resolved again and only its allowed addresses are kept: a
    /// name that answers loopback for a server elsewhere connects nowhere (DNS rebinding).
    #[tokio::test]
    async fn the_resolver_keeps_only_allowed_addresses() {
        let resolve = |server: &str| {
            let reach = Arc::new(Reach::new(&Url::parse(server).unwrap()));
            GuardedResolver(reach).resolve("localhost".parse().unwrap())
        };
        let e = resolve("https://203.0.113.7/mcp").await.err().unwrap();
        assert!(e.to_string().contains("resolves to no address"), "{e}");
        let kept: Vec<SocketAddr> = resolve("http://127.0.0.1:3000/mcp")
            .await
            .unwrap()
            .collect();
        assert!(!kept.is_empty() && kept.iter().all(|a| a.ip().is_loopback()));
        let trusted: Vec<SocketAddr> = resolve("https://localhost:3000/mcp")
            .await
            .unwrap()
            .collect();
        assert!(
            !trusted.is_empty(),
            "the server's own name is the config's word"
        );
    }
}
