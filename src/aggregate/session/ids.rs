//! Unguessable ids the aggregate hands out: a legacy HTTP session's `Mcp-Session-Id` and a
//! 2026-07-28 `requestState` (the key to a call parked while its client answers a question).

use sha2::Digest;

/// 128 random bits as 32 hex digits (visible ASCII, as MCP requires of a session id).
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: the time and the address of a stack variable through sha256 —
        // still unpredictable to a client that cannot read this process.
        let seed = format!("{:?}{:p}", std::time::SystemTime::now(), &bytes);
        bytes.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes())[..16]);
    }
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_32_hex_digits_and_differ() {
        let (a, b) = (random_id(), random_id());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
