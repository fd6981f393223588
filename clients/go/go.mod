module github.com/mcp-sidecar/mcp-sidecar/clients/go

go 1.24
