//! Linux enforcement: Landlock, seccomp, a network namespace, rlimits and cgroup limits, prepared
//! in the parent ([`plan`]) and applied by the child between fork and exec.

mod cgroups;
pub mod detect;
mod landlock;
mod netns;
pub mod plan;
mod rlimits;
mod seccomp;
