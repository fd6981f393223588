//! The `mcp-sidecar` binary. Its body is the library's [`mcp_sidecar::main`] (`src/cli/entry.rs`),
//! so the library decides what it exposes and the compiler sees every item it does not use.

fn main() -> std::process::ExitCode {
    mcp_sidecar::main()
}
