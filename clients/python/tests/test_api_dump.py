"""The package's public API (names, bases, signatures, docstrings) is the one recorded in
``tools/api.txt``: a change to it is deliberate (``python3 tools/api_dump.py --write``)."""

import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")


def test_public_api_is_the_recorded_one() -> None:
    dump = subprocess.run(
        [sys.executable, os.path.join(TOOLS, "api_dump.py")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    with open(os.path.join(TOOLS, "api.txt"), encoding="utf-8") as f:
        recorded = f.read()
    assert dump.splitlines() == recorded.splitlines()
