//! The one rule for a URL put in front of a person — an elicitation in URL mode, the authorization
//! step of an OAuth login (`auth/authorize`): `https`, or plain `http` only to a loopback host.
//! Anything else (`javascript:`, `data:`, `file:`, a custom scheme, plain http across the network)
//! is refused before the owner is asked: a host may open such a URL in a browser or hand it to the
//! system, and the server asking is not trusted to choose what runs there.

use url::{Host, Url};

/// Whether `text` is a URL a person may be shown: `Err` says why not (never quoting the URL,
/// which may carry a server's secret in its query).
pub(crate) fn check_shown_url(text: &str) -> Result<(), String> {
    let url = Url::parse(text).map_err(|e| format!("is not a valid URL ({e})"))?;
    match url.scheme() {
        "https" if url.host().is_some() => Ok(()),
        "http" if url.host().is_some_and(is_loopback) => Ok(()),
        "http" => Err("is plain http to a host that is not loopback; use https".to_owned()),
        scheme => Err(format!(
            "has scheme `{scheme}`; only https (or http to a loopback host) is shown"
        )),
    }
}

/// `localhost`, 127.0.0.0/8 or `::1` (and an IPv4-mapped loopback address).
fn is_loopback(host: Host<&str>) -> bool {
    match host {
        Host::Domain(d) => d.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_or_loopback_http_only() {
        for ok in [
            "https://example.com/verify?x=1",
            "HTTPS://Example.com",
            "http://127.0.0.1:8080/cb",
            "http://localhost/x",
            "http://[::1]:9/",
            "http://127.1.2.3/",
        ] {
            assert_eq!(check_shown_url(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("javascript:alert(document.cookie)", "scheme `javascript`"),
            ("file:///etc/passwd", "scheme `file`"),
            ("data:text/html,<script>alert(1)</script>", "scheme `data`"),
            ("vbscript:msgbox", "scheme `vbscript`"),
            ("ftp://example.com/x", "scheme `ftp`"),
            ("http://example.com/login", "not loopback"),
            ("http://localhost.evil.example/", "not loopback"),
            ("not a url", "not a valid URL"),
        ] {
            let e = check_shown_url(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(!e.contains(bad), "the URL is not quoted: {e}");
        }
    }
}
