//! `mcp-sidecar doctor`: trial starts, then a diagnosis of each server from what they left.
//! `run` is the command; `diagnose` turns evidence into findings (`failures` for a start that
//! failed, one diagnosis per cause; `finding` the shapes they share; `sandbox` a sandbox's refusals); `command` looks a program up
//! as its spawn would; `render` writes the report.

mod command;
mod diagnose;
mod failures;
mod finding;
mod render;
mod run;
mod sandbox;

pub(crate) use run::{run, DoctorArgs};
