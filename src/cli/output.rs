//! Where the commands for people write: their report to stdout (the one place in those commands
//! that does; in serve mode stdout belongs to the protocol writer alone), progress and notes to
//! stderr, and the few colours a terminal gets.
//!
//! Writes ignore errors: a reader that went away (`mcp-sidecar list | head -1`) must not turn the
//! report into a panic while servers are still to be stopped.

use std::io::{IsTerminal, Write};

use serde_json::Value;

use super::exit::Exit;

/// Writes the report (or part of it) to stdout.
pub(crate) fn stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Writes a line for the person at the terminal to stderr.
pub(crate) fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// A usage error: `mcp-sidecar: <why>` on stderr; the command exits 2.
pub(crate) fn usage(why: &str) -> Exit {
    stderr_line(&format!("mcp-sidecar: {why}"));
    Exit::Usage
}

/// A JSON document for `--json`, indented for people who read it too.
pub(crate) fn pretty(doc: &Value) -> String {
    serde_json::to_string_pretty(doc).unwrap_or_default()
}

/// Colours for the human report: only on a terminal, and never with `NO_COLOR` set
/// (<https://no-color.org>).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paint {
    enabled: bool,
}

impl Paint {
    /// Colours when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub(crate) fn for_stdout() -> Self {
        Self {
            enabled: colours_wanted(std::io::stdout().is_terminal()),
        }
    }

    /// Colours when stderr is a terminal and `NO_COLOR` is unset or empty.
    pub(crate) fn for_stderr() -> Self {
        Self {
            enabled: colours_wanted(std::io::stderr().is_terminal()),
        }
    }

    pub(crate) fn good(&self, text: &str) -> String {
        self.wrap("32", text)
    }

    pub(crate) fn bad(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    pub(crate) fn warn(&self, text: &str) -> String {
        self.wrap("33", text)
    }

    pub(crate) fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub(crate) fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

fn colours_wanted(terminal: bool) -> bool {
    terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
