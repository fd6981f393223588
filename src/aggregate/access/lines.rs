//! The bearer tokens of `--token-file` (or `MCP_SIDECAR_TOKEN`): one per line, each line a client
//! allowed everything, named `token-N` by its line.

/// The bearer tokens callers may present: one per line of the token file (one per client), so a
/// legacy session can be bound to the token that opened it. Their values never appear in `Debug`
/// output, and they are compared in constant time.
#[derive(Clone)]
pub(crate) struct Token(Vec<String>);

impl Token {
    /// `None` when no line holds a token (lines end with `\n` or `\r\n`; empty lines are skipped).
    pub(crate) fn new(value: &str) -> Option<Token> {
        let tokens: Vec<String> = value
            .split('\n')
            .map(|line| line.trim_end_matches('\r'))
            .filter(|line| !line.is_empty())
            .map(str::to_owned)
            .collect();
        (!tokens.is_empty()).then_some(Token(tokens))
    }

    /// Every token (to mask).
    pub(crate) fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// Which token `presented` is (its line, from 0), compared with every token in time that does
    /// not depend on where they differ.
    pub(crate) fn which(&self, presented: &[u8]) -> Option<usize> {
        use subtle::ConstantTimeEq;
        let mut found = None;
        for (i, token) in self.0.iter().enumerate() {
            let a = token.as_bytes();
            // Lengths are compared openly (a token's length is no secret worth a timing channel).
            if a.len() == presented.len() && bool::from(a.ct_eq(presented)) {
                found = Some(i);
            }
        }
        found
    }

    /// Whether `presented` is one of the tokens.
    pub(crate) fn matches(&self, presented: &[u8]) -> bool {
        self.which(presented).is_some()
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_matches_only_itself_and_never_prints() {
        let t = Token::new("s3cret-value\n").unwrap();
        assert!(t.matches(b"s3cret-value"));
        assert!(!t.matches(b"s3cret-valuf"));
        assert!(!t.matches(b"s3cret"));
        assert_eq!(format!("{t:?}"), "Token(***)");
        assert!(Token::new("\n").is_none());
        let two = Token::new("first\r\n\nsecond\n").unwrap();
        assert_eq!(two.values().collect::<Vec<_>>(), ["first", "second"]);
        assert_eq!(two.which(b"first"), Some(0));
        assert_eq!(two.which(b"second"), Some(1));
        assert_eq!(two.which(b"third"), None);
    }
}
