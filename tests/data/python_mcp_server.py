"""A remote MCP server from the official Python SDK (`pip install mcp`), for tests/remote_servers.rs.

Usage: python3 python_mcp_server.py streamable-http|sse PORT
"""
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("py-remote")


@server.tool()
def echo(text: str) -> str:
    """Returns the text unchanged."""
    return text


if __name__ == "__main__":
    transport, port = sys.argv[1], int(sys.argv[2])
    server.run(transport, host="127.0.0.1", port=port)
