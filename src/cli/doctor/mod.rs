//! `mcp-sidecar doctor`: trial starts, then a diagnosis of each server from what they left.
//! `run` is the command; `findings` turns evidence into diagnoses; `command` looks a program up
//! as its spawn would; `render` writes the report.

mod command;
mod findings;
mod render;
mod run;

pub use run::{run, DoctorArgs};
