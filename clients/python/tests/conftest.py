"""Test setup: the source tree on sys.path, and the sidecar/fixture binaries.

``MCP_SIDECAR_BIN`` and ``MCP_FIXTURE_BIN`` name the binaries; by default they are
``target/debug/`` of the repository root (found from this file), built by ``cargo build
--workspace``. With ``MCP_SIDECAR_TEST_INSTALLED=1`` the suite runs against the package installed
in the running environment (a wheel) and the sidecar binary it installed, not against ``src/``.
"""

from __future__ import annotations

import os
import sys
import sysconfig

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), "src")
if os.environ.get("MCP_SIDECAR_TEST_INSTALLED") != "1":
    sys.path.insert(0, SOURCE)
sys.path.insert(0, HERE)

import support  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    if support.INSTALLED:
        import mcp_sidecar

        if os.path.abspath(mcp_sidecar.__file__).startswith(SOURCE + os.sep):
            raise pytest.UsageError(f"MCP_SIDECAR_TEST_INSTALLED=1 but mcp_sidecar is {SOURCE}'s")
        scripts = os.path.abspath(sysconfig.get_path("scripts"))
        if not os.environ.get("MCP_SIDECAR_BIN") and os.path.dirname(support.SIDECAR_BIN) != scripts:
            raise pytest.UsageError(
                f"MCP_SIDECAR_TEST_INSTALLED=1 but the sidecar is {support.SIDECAR_BIN}, not the one "
                f"installed in {scripts}"
            )
    missing = [p for p in (support.SIDECAR_BIN, support.FIXTURE_BIN) if not os.access(p, os.X_OK)]
    if missing:
        raise pytest.UsageError(
            "missing binaries: "
            + ", ".join(missing)
            + " (run `cargo build --workspace` at the repository root, or set MCP_SIDECAR_BIN "
            "and MCP_FIXTURE_BIN)"
        )
