//! Linux enforcement: Landlock, seccomp, a network namespace, rlimits and cgroup limits, prepared
//! in the parent ([`plan`]) and applied by the child between fork and exec.
//!
//! Its other files:
//! - `cgroups`: The memory and task limits of a server's whole tree, held by cgroup controllers.
//! - `detect`: What this host can enforce, found once per process.
//! - `landlock`: The Landlock ruleset of one spawn.
//! - `netns`: A network namespace of the server's own, made by the child between fork and exec.
//! - `rlimits`: Per-process resource limits, set by the child between fork and exec (`setrlimit` is …
//! - `seccomp`: The seccomp filters of one spawn, compiled to BPF in the parent (seccompiler) and loaded by the …

mod cgroups;
pub mod detect;
mod landlock;
mod netns;
pub mod plan;
mod rlimits;
mod seccomp;
