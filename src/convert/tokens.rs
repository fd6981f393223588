//! Token estimates: what a tool definition costs in a model's context.
//!
//! The estimate is the definition's bytes (compact JSON, as sent) divided by
//! [`BYTES_PER_TOKEN`], rounded up. That ratio was measured with OpenAI's `o200k_base` tokenizer
//! (the GPT-4o / GPT-5 family's) over the converted definitions of this repository's saved real-
//! world schemas in every format: 4.28 bytes per token. `mcp-bench tokens --features tokenizer`
//! checks it against that tokenizer on real servers' tools (`docs/benchmarks.md`): totals within
//! 5 % (a slight over-estimate, the safe side for a budget), single small definitions within about
//! 30 %. No tokenizer is built in: the exact one depends on the model (Anthropic publishes none),
//! a real one would add megabytes of vocabulary to a sidecar that otherwise needs about 10 MiB,
//! and a byte count is free once the definition is serialised.

/// Bytes of compact JSON per token, in hundredths (4.28).
pub const BYTES_PER_TOKEN_X100: u64 = 428;

/// Bytes of compact JSON per token.
pub const BYTES_PER_TOKEN: f64 = BYTES_PER_TOKEN_X100 as f64 / 100.0;

/// The estimated tokens of `bytes` bytes of compact JSON (at least 1 for anything non-empty).
pub fn estimate(bytes: usize) -> u64 {
    (bytes as u64 * 100).div_ceil(BYTES_PER_TOKEN_X100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_up() {
        assert_eq!(estimate(0), 0);
        assert_eq!(estimate(1), 1);
        assert_eq!(estimate(428), 100);
        assert_eq!(estimate(429), 101);
        assert_eq!(estimate(4280), 1000);
    }
}
