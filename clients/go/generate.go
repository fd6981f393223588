// generate.go owns the step that ships a locally built sidecar binary next
// to the module: `go generate` in this directory copies the mcp-sidecar
// built by `cargo build` (../../target/release, else ../../target/debug, or
// the file named by $MCP_SIDECAR_BIN) to bin/mcp-sidecar, where FindBinary
// looks for it.

package client

//go:generate go run ./internal/copybin -out bin
