"""The agent-loop example runs offline against the fixture and prints its transcript."""

from __future__ import annotations

import os
import subprocess
import sys

import support


def test_agent_loop_example() -> None:
    script = os.path.join(os.path.dirname(support.HERE), "examples", "agent_loop.py")
    env = dict(os.environ, MCP_SIDECAR_BIN=support.SIDECAR_BIN, MCP_FIXTURE_BIN=support.FIXTURE_BIN)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "assistant → mcp__fixture__echo" in out
    assert "tool [call_1] → hello from the agent" in out
    assert "error INVALID_ARGUMENTS" in out
    assert out.rstrip().splitlines()[-1].startswith("assistant: You said 'hello from the agent'")
