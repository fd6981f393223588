//! Sandboxing of stdio servers: what a server may reach once it runs.

pub mod egress;
