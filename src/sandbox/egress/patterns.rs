//! The allow list of `sandbox.network.allow`: `api.example.com`, `*.example.com` (subdomains only,
//! not `example.com` itself), IP literals (`127.0.0.1`, `[::1]`), each with an optional `:port`.
//! Without a port a pattern allows 80 and 443 only. Pure: a pattern decides whether a request's
//! host may be tried, and whether that host may then resolve to an internal address.

use crate::error::{Error, ErrorCode, Result};
use crate::limits::EGRESS_MAX_PATTERNS;

use super::target::{is_hostname, parse_host, Host, Target};

/// The config key these patterns come from, named in every refusal.
pub(super) const ALLOW_KEY: &str = "sandbox.network.allow";

/// The ports a pattern without one allows.
const DEFAULT_PORTS: [u16; 2] = [80, 443];

#[derive(Clone, Debug, PartialEq, Eq)]
enum HostPattern {
    Exact(String),
    /// `*.suffix`: any name ending in `.suffix`.
    Subdomains(String),
    Ip(std::net::IpAddr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Pattern {
    host: HostPattern,
    port: Option<u16>,
}

/// What a matching pattern grants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permit {
    /// The host may resolve to loopback, private or link-local addresses: the pattern is an IP
    /// literal or `localhost`, so whoever wrote it meant this machine or its network.
    pub internal_addresses: bool,
}

/// Every pattern of one server, parsed once at start.
#[derive(Clone, Debug, Default)]
pub struct AllowList {
    patterns: Vec<Pattern>,
}

impl AllowList {
    /// Parses the patterns; the first invalid one is a `CONFIG_INVALID` naming it.
    pub fn parse(server: &str, hosts: &[String]) -> Result<Self> {
        if hosts.len() > EGRESS_MAX_PATTERNS {
            return Err(invalid(
                server,
                format!(
                    "{} hosts in `{ALLOW_KEY}`, more than the {EGRESS_MAX_PATTERNS} allowed (limit EGRESS_MAX_PATTERNS)",
                    hosts.len()
                ),
            ));
        }
        let patterns = hosts
            .iter()
            .map(|h| {
                parse_pattern(h)
                    .map_err(|why| invalid(server, format!("`{h}` in `{ALLOW_KEY}`: {why}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { patterns })
    }

    /// The grant of the first pattern that matches `target`, or `None`: refused.
    pub fn permits(&self, target: &Target) -> Option<Permit> {
        self.patterns
            .iter()
            .filter(|p| {
                p.port.map_or(DEFAULT_PORTS.contains(&target.port), |port| {
                    port == target.port
                })
            })
            .find_map(|p| match (&p.host, &target.host) {
                (HostPattern::Ip(ip), Host::Ip(want)) if ip == want => Some(Permit {
                    internal_addresses: true,
                }),
                (HostPattern::Exact(name), Host::Name(want)) if name == want => Some(Permit {
                    internal_addresses: name == "localhost",
                }),
                (HostPattern::Subdomains(suffix), Host::Name(want))
                    if want.len() > suffix.len() + 1
                        && want.ends_with(suffix.as_str())
                        && want.as_bytes()[want.len() - suffix.len() - 1] == b'.' =>
                {
                    Some(Permit {
                        internal_addresses: false,
                    })
                }
                _ => None,
            })
    }
}

fn invalid(server: &str, message: String) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("server `{server}`: {message}"),
    )
    .with("server", server)
    .with("field", ALLOW_KEY)
}

fn parse_pattern(text: &str) -> std::result::Result<Pattern, String> {
    let text = text.trim();
    let (host, port) = split_port(text)?;
    if host == "*" || host.is_empty() {
        return Err(
            "a pattern names a host or `*.domain`; for any host use the `network` preset".into(),
        );
    }
    let host = if let Some(suffix) = host.strip_prefix("*.") {
        let suffix = suffix
            .strip_suffix('.')
            .unwrap_or(suffix)
            .to_ascii_lowercase();
        if !is_hostname(&suffix) {
            return Err(format!("`{suffix}` after `*.` is not a host name"));
        }
        HostPattern::Subdomains(suffix)
    } else if host.contains('*') {
        return Err("`*` may only stand first, as in `*.example.com`".into());
    } else {
        match parse_host(host)? {
            Host::Name(name) => HostPattern::Exact(name),
            Host::Ip(ip) => HostPattern::Ip(ip),
        }
    };
    Ok(Pattern { host, port })
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 literal (no port).
fn split_port(text: &str) -> std::result::Result<(&str, Option<u16>), String> {
    let (host, port) = if text.starts_with('[') {
        match text.rsplit_once("]:") {
            Some((host, port)) => (&text[..host.len() + 1], Some(port)),
            None => (text, None),
        }
    } else if text.matches(':').count() == 1 {
        let (host, port) = text.split_once(':').unwrap_or((text, ""));
        (host, Some(port))
    } else {
        (text, None)
    };
    let port = port
        .map(|p| match p.parse::<u16>() {
            Ok(0) | Err(_) => Err(format!("`{p}` is not a port (1-65535)")),
            Ok(port) => Ok(port),
        })
        .transpose()?;
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(hosts: &[&str]) -> AllowList {
        AllowList::parse(
            "s",
            &hosts.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
        )
        .unwrap()
    }

    fn target(host: &str, port: u16) -> Target {
        Target::new(host, port).unwrap()
    }

    #[test]
    fn exact_names_allow_80_and_443_without_a_port() {
        let l = list(&["API.example.com"]);
        assert!(l.permits(&target("api.example.com", 443)).is_some());
        assert!(l.permits(&target("api.example.com", 80)).is_some());
        assert!(l.permits(&target("api.example.com", 8443)).is_none());
        assert!(l.permits(&target("x.api.example.com", 443)).is_none());
        assert!(l.permits(&target("example.com", 443)).is_none());
    }

    #[test]
    fn a_port_in_the_pattern_allows_that_port_only() {
        let l = list(&["*.github.com:443", "api.example.com:8443"]);
        assert!(l.permits(&target("api.github.com", 443)).is_some());
        assert!(l.permits(&target("api.github.com", 80)).is_none());
        assert!(l.permits(&target("api.example.com", 8443)).is_some());
        assert!(l.permits(&target("api.example.com", 443)).is_none());
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        let l = list(&["*.example.com"]);
        assert!(l.permits(&target("a.example.com", 443)).is_some());
        assert!(l.permits(&target("a.b.example.com", 443)).is_some());
        assert!(l.permits(&target("example.com", 443)).is_none());
        assert!(l.permits(&target("badexample.com", 443)).is_none());
        assert!(l.permits(&target("example.com.evil.net", 443)).is_none());
    }

    #[test]
    fn ip_literals_match_only_when_listed_and_grant_internal_addresses() {
        let l = list(&["127.0.0.1:8080", "[::1]:9000", "example.com"]);
        let p = l.permits(&target("127.0.0.1", 8080)).unwrap();
        assert!(p.internal_addresses);
        assert!(l.permits(&target("[::1]", 9000)).is_some());
        assert!(l.permits(&target("127.0.0.1", 9000)).is_none());
        assert!(l.permits(&target("93.184.216.34", 443)).is_none());
        assert!(
            !l.permits(&target("example.com", 443))
                .unwrap()
                .internal_addresses
        );
    }

    #[test]
    fn only_localhost_itself_may_resolve_to_loopback() {
        let l = list(&["localhost:8080", "*.localhost:8080"]);
        assert!(
            l.permits(&target("localhost", 8080))
                .unwrap()
                .internal_addresses
        );
        assert!(
            !l.permits(&target("a.localhost", 8080))
                .unwrap()
                .internal_addresses
        );
    }

    #[test]
    fn invalid_patterns_are_config_errors_naming_the_pattern_and_key() {
        for bad in [
            "*",
            "",
            "a*.example.com",
            "example.com:0",
            "example.com:http",
            "exa mple.com",
            "*.",
            "[::1]:x",
        ] {
            let err = AllowList::parse("s", &[bad.to_string()]).unwrap_err();
            assert_eq!(err.code, ErrorCode::ConfigInvalid, "{bad}");
            assert!(err.message.contains(ALLOW_KEY), "{}", err.message);
            assert!(err.message.contains(&format!("`{bad}`")), "{}", err.message);
        }
    }
}
