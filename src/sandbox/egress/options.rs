//! The bounds one proxy runs under ([`crate::limits`] by default) and its fixed answers for names,
//! the test seam that lets the DNS-rebinding guard be tested on a machine whose only network is
//! loopback.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use crate::limits;

#[derive(Clone, Debug)]
pub struct EgressOptions {
    pub head_timeout: Duration,
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    pub max_connections: usize,
    /// Names answered from here instead of DNS (like curl's `--resolve`); empty in the sidecar.
    pub resolve: HashMap<String, Vec<IpAddr>>,
}

impl Default for EgressOptions {
    fn default() -> Self {
        Self {
            head_timeout: limits::EGRESS_HEAD_TIMEOUT,
            idle_timeout: limits::EGRESS_IDLE_TIMEOUT,
            connect_timeout: limits::EGRESS_CONNECT_TIMEOUT,
            max_connections: limits::EGRESS_MAX_CONNECTIONS,
            resolve: HashMap::new(),
        }
    }
}
