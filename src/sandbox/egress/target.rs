//! The host a request names: `CONNECT host:port`'s authority or a plain request's absolute URL,
//! normalised (lowercase, no trailing dot, IPv6 without brackets) for matching and counting.

use std::fmt;
use std::net::IpAddr;

use hyper::Uri;

/// The default port of a tunnel (`CONNECT host` without one) and of a plain request.
pub(super) const TUNNEL_DEFAULT_PORT: u16 = 443;
pub(super) const PLAIN_DEFAULT_PORT: u16 = 80;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    Name(String),
    Ip(IpAddr),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub host: Host,
    pub port: u16,
}

impl Target {
    /// The target of `CONNECT host:port` (its request target is the authority alone).
    pub fn of_connect(uri: &Uri) -> Result<Self, String> {
        let authority = uri
            .authority()
            .ok_or_else(|| format!("CONNECT needs `host:port` as its target, not `{uri}`"))?;
        Self::new(
            authority.host(),
            authority.port_u16().unwrap_or(TUNNEL_DEFAULT_PORT),
        )
    }

    /// The target of a plain request in absolute form (`GET http://host[:port]/path`).
    pub fn of_absolute(uri: &Uri) -> Result<Self, String> {
        match (uri.scheme_str(), uri.authority()) {
            (Some("http"), Some(authority)) => Self::new(
                authority.host(),
                authority.port_u16().unwrap_or(PLAIN_DEFAULT_PORT),
            ),
            (Some(scheme), Some(_)) => Err(format!(
                "only `http` URLs are forwarded as plain requests, not `{scheme}`; \
                 `https` goes through `CONNECT host:443`"
            )),
            _ => Err(format!(
                "this is an egress proxy: a request names its URL in full \
                 (`GET http://host/path`) or tunnels with `CONNECT host:port`, not `{uri}`"
            )),
        }
    }

    pub fn new(host: &str, port: u16) -> Result<Self, String> {
        if port == 0 {
            return Err(format!("`{host}`: port 0 cannot be reached"));
        }
        Ok(Self {
            host: parse_host(host)?,
            port,
        })
    }
}

/// A host as written in a URL or a pattern: an IP literal (IPv6 in brackets or not) or a name.
pub(super) fn parse_host(host: &str) -> Result<Host, String> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(Host::Ip(ip));
    }
    let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if is_hostname(&name) {
        Ok(Host::Name(name))
    } else {
        Err(format!("`{host}` is neither a host name nor an IP address"))
    }
}

/// A DNS name: labels of letters, digits, `-` and `_`, 1 to 63 bytes each, 253 in all.
pub(super) fn is_hostname(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(name) => f.write_str(name),
            Self::Ip(IpAddr::V6(v6)) => write!(f, "[{v6}]"),
            Self::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_targets_are_normalised() {
        let t = Target::of_connect(&"API.Example.COM.:8443".parse().unwrap()).unwrap();
        assert_eq!(t.to_string(), "api.example.com:8443");
        let t = Target::of_connect(&"[::1]:443".parse().unwrap()).unwrap();
        assert_eq!(t.host, Host::Ip("::1".parse().unwrap()));
        assert_eq!(t.to_string(), "[::1]:443");
    }

    #[test]
    fn plain_targets_default_to_port_80_and_refuse_other_forms() {
        let t = Target::of_absolute(&"http://example.com/a?b".parse().unwrap()).unwrap();
        assert_eq!(t.to_string(), "example.com:80");
        assert!(Target::of_absolute(&"/just/a/path".parse().unwrap()).is_err());
        assert!(
            Target::of_absolute(&"https://example.com/".parse().unwrap())
                .unwrap_err()
                .contains("CONNECT")
        );
    }
}
