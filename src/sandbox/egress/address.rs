//! Which addresses a name may not resolve to: after DNS, an allowed name must still lead outside
//! this machine and its private networks, or a name the attacker controls could be made to resolve
//! to 127.0.0.1 and reach the sidecar's own ports (DNS rebinding). Pure.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The class of an address a name may not reach, or `None` for an ordinary public address.
pub(super) fn internal_class(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_class(v4),
        IpAddr::V6(v6) => {
            // `::ffff:127.0.0.1` and `::127.0.0.1` reach IPv4 addresses: judge the address they hold.
            if let Some(v4) = v6.to_ipv4_mapped() {
                return v4_class(v4);
            }
            v6_class(v6)
        }
    }
}

fn v4_class(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() || a == 0 {
        // 0.0.0.0 connects to this machine on Linux.
        Some("unspecified")
    } else if ip.is_private() {
        Some("private")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (carrier-grade NAT)")
    } else if ip.is_link_local() {
        // 169.254.169.254 is the cloud metadata service.
        Some("link-local")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("multicast, broadcast or reserved")
    } else {
        None
    }
}

fn v6_class(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else if first & 0xfe00 == 0xfc00 {
        Some("private (unique local)")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if ip.is_multicast() {
        Some("multicast, broadcast or reserved")
    } else if let Some(v4) = ip.to_ipv4() {
        // The deprecated IPv4-compatible form `::a.b.c.d`.
        v4_class(v4)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Option<&'static str> {
        internal_class(s.parse().unwrap())
    }

    #[test]
    fn internal_addresses_are_named() {
        assert_eq!(class("127.0.0.1"), Some("loopback"));
        assert_eq!(class("127.8.9.10"), Some("loopback"));
        assert_eq!(class("::1"), Some("loopback"));
        assert_eq!(class("::ffff:127.0.0.1"), Some("loopback"));
        assert_eq!(class("0.0.0.0"), Some("unspecified"));
        assert_eq!(class("10.1.2.3"), Some("private"));
        assert_eq!(class("172.16.0.1"), Some("private"));
        assert_eq!(class("192.168.1.1"), Some("private"));
        assert_eq!(class("100.64.0.1"), Some("shared (carrier-grade NAT)"));
        assert_eq!(class("169.254.169.254"), Some("link-local"));
        assert_eq!(class("fe80::1"), Some("link-local"));
        assert_eq!(class("fd00::1"), Some("private (unique local)"));
        assert_eq!(class("::ffff:10.0.0.1"), Some("private"));
    }

    #[test]
    fn public_addresses_pass() {
        assert_eq!(class("93.184.216.34"), None);
        assert_eq!(class("1.1.1.1"), None);
        assert_eq!(class("2606:4700::1111"), None);
        assert_eq!(class("172.32.0.1"), None);
    }
}
