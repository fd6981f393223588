//! The exit status of the commands for people (`list`, `call`, `test`, `doctor`, `inspect`): one
//! meaning per number, the same in every command, so a script can branch on it. When several
//! apply, the most fundamental wins (a usage error before a config problem before a server that
//! failed).
//!
//! | status | meaning |
//! |---|---|
//! | 0 | everything asked for worked |
//! | 1 | a server failed to start (or, for `doctor`, has a problem that stops it) |
//! | 2 | usage error: unknown flag, missing argument, a `--arg` that is not `KEY=VALUE` or does not fit the tool's schema |
//! | 3 | configuration invalid: a file unreadable or malformed, a server's entry rejected, a server named that the files do not define |
//! | 4 | the tool call failed (`call`): unknown tool, invalid arguments, timeout, the server's own error |
//! | 5 | the tool ran and reported an error (`call`: `isError: true` in its result) |
//! | 130 | interrupted (SIGINT, SIGTERM, SIGHUP): every server was stopped first |

/// See the module doc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    Ok,
    ServerFailed,
    Usage,
    ConfigInvalid,
    CallFailed,
    ToolError,
    Interrupted,
}

impl Exit {
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::ServerFailed => 1,
            Exit::Usage => 2,
            Exit::ConfigInvalid => 3,
            Exit::CallFailed => 4,
            Exit::ToolError => 5,
            Exit::Interrupted => 130,
        }
    }

    /// The status when both `self` and `other` apply: the more fundamental one.
    pub(crate) fn and(self, other: Exit) -> Exit {
        let rank = |e: Exit| match e {
            Exit::Interrupted => 6,
            Exit::Usage => 5,
            Exit::ConfigInvalid => 4,
            Exit::CallFailed => 3,
            Exit::ToolError => 2,
            Exit::ServerFailed => 1,
            Exit::Ok => 0,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_more_fundamental_status_wins() {
        assert_eq!(Exit::Ok.and(Exit::ServerFailed), Exit::ServerFailed);
        assert_eq!(
            Exit::ServerFailed.and(Exit::ConfigInvalid),
            Exit::ConfigInvalid
        );
        assert_eq!(
            Exit::ConfigInvalid.and(Exit::ServerFailed),
            Exit::ConfigInvalid
        );
        assert_eq!(Exit::Usage.and(Exit::Interrupted).code(), 130);
    }
}
