//! Progress while servers start: one line per server on stderr as its start ends (ready or
//! failed, with how long it took), so a person waiting on a slow server sees which one it is.
//! Only when stderr is a terminal (a script or a log file gets nothing) and not `--quiet`; never on
//! stdout, which carries the report alone. When the report goes to the same screen, a failure's
//! line does not repeat the reason the report gives just below it.

use std::io::IsTerminal;
use std::time::Instant;

use super::output::{stderr_line, Paint};
use super::table;

pub(crate) struct Progress {
    enabled: bool,
    paint: Paint,
    started: Instant,
    total: usize,
    done: usize,
    /// Width of the longest server name, so the lines align.
    width: usize,
    /// Stdout is a terminal too: the report shows each failure's reason on the same screen.
    report_on_screen: bool,
}

impl Progress {
    /// Progress for `names`, shown when stderr is a terminal and `quiet` is not asked for.
    pub(crate) fn new<'a>(names: impl Iterator<Item = &'a str>, quiet: bool) -> Self {
        let names: Vec<&str> = names.collect();
        Self {
            enabled: !quiet && std::io::stderr().is_terminal(),
            paint: Paint::for_stderr(),
            started: Instant::now(),
            total: names.len(),
            done: 0,
            width: names.iter().map(|n| n.chars().count()).max().unwrap_or(0),
            report_on_screen: std::io::stdout().is_terminal(),
        }
    }

    /// One server's start ended: `Ok(detail)` ready, `Err(why)` failed.
    pub(crate) fn finished(&mut self, name: &str, outcome: Result<&str, &str>) {
        self.done += 1;
        if !self.enabled {
            return;
        }
        let after = table::duration(self.started.elapsed());
        let (mark, text) = match outcome {
            Ok(detail) => (
                self.paint.good("ready "),
                format!("after {after}  {detail}"),
            ),
            Err(_) if self.report_on_screen => (self.paint.bad("failed"), format!("after {after}")),
            Err(why) => (self.paint.bad("failed"), format!("after {after}  {why}")),
        };
        let counter = format!("[{}/{}]", self.done, self.total);
        stderr_line(&format!(
            "{}  {name:<width$}  {mark}  {text}",
            self.paint.dim(&counter),
            width = self.width
        ));
    }
}
