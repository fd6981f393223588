"""The examples run offline against the fixture and print their transcripts."""

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


def test_sampling_loop_example() -> None:
    """The sampling example: the fixture asks the host's stand-in model through the sidecar."""
    script = os.path.join(os.path.dirname(support.HERE), "examples", "sampling_loop.py")
    env = dict(os.environ, MCP_SIDECAR_BIN=support.SIDECAR_BIN, MCP_FIXTURE_BIN=support.FIXTURE_BIN)
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "server calc → host: sampling/createMessage" in lines[1]
    assert "tool result ← the model said '42'" in lines
    assert "tool result ← the model said '144'" in lines
    assert lines[-1].startswith("tool result ← the host refused: the stand-in model only")
