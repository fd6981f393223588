"""Adapter tests: each framework's real agent loop, offline (its own scripted or fake model),
through the sidecar to the fixture server. The frameworks are not dependencies of the client:
these run in a venv that has them (``.ci/run`` makes it), with the client from ``src/`` on the
path (no wheel build); the core suite in ``tests/`` never imports them."""

from __future__ import annotations

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(CLIENT, "src"))
sys.path.insert(0, os.path.join(CLIENT, "tests"))
sys.path.insert(0, HERE)

import support  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    missing = [p for p in (support.SIDECAR_BIN, support.FIXTURE_BIN) if not os.access(p, os.X_OK)]
    if missing:
        raise pytest.UsageError(
            "missing binaries: " + ", ".join(missing) + " (run `cargo build --workspace`)"
        )
