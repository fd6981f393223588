//! `doctor`'s report: for people, each server's verdict on one line and, below a problem, its
//! evidence and its fixes; for scripts, one JSON document.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::finding::{Finding, Severity};
use crate::cli::output::Paint;

/// One server's verdict.
pub(super) struct Verdict {
    pub name: String,
    /// `ready`, `error`, or `rejected` (the entry never got to a start).
    pub state: String,
    /// The trial start's timings, when there was one.
    pub timings: Option<Value>,
    pub tools: Option<u64>,
    pub findings: Vec<Finding>,
}

impl Verdict {
    pub(super) fn worst(&self) -> Option<Severity> {
        if self.findings.iter().any(|f| f.severity == Severity::Error) {
            Some(Severity::Error)
        } else if self.findings.is_empty() {
            None
        } else {
            Some(Severity::Warning)
        }
    }
}

pub(super) fn human(verdicts: &[Verdict], unknown: &[String], paint: Paint) -> String {
    let width = verdicts
        .iter()
        .map(|v| v.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for v in verdicts {
        let mark = match v.worst() {
            None => paint.good("ok  "),
            Some(Severity::Warning) => paint.warn("warn"),
            Some(Severity::Error) => paint.bad("FAIL"),
        };
        let headline = match v.findings.first() {
            Some(f) => f.summary.clone(),
            None => format!(
                "ready, {} tools, {}",
                v.tools.unwrap_or(0),
                v.timings
                    .as_ref()
                    .map(crate::cli::trial::phases)
                    .unwrap_or_default()
            ),
        };
        let _ = writeln!(out, "{mark}  {:<width$}  {headline}", v.name);
        let indent = " ".repeat(width + 8);
        for (i, f) in v.findings.iter().enumerate() {
            if i > 0 {
                let _ = writeln!(out, "{indent}{} {}", paint.bold("also:"), f.summary);
            }
            for e in &f.evidence {
                let _ = writeln!(out, "{indent}{}", paint.dim(e));
            }
            for fix in &f.fix {
                let _ = writeln!(out, "{indent}{} {fix}", paint.bold("fix:"));
            }
        }
    }
    for u in unknown {
        let _ = writeln!(out, "{}  {u}", paint.bad("FAIL"));
    }
    out
}

pub(super) fn json_document(verdicts: &[Verdict], unknown: &[String]) -> Value {
    let servers: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            let mut s = json!({
                "name": v.name,
                "state": v.state,
                "ok": v.worst() != Some(Severity::Error),
                "findings": v.findings,
            });
            if let Some(t) = &v.timings {
                s["timings"] = t.clone();
            }
            if let Some(n) = v.tools {
                s["toolsCount"] = json!(n);
            }
            s
        })
        .collect();
    json!({ "servers": servers, "unknownServers": unknown })
}
