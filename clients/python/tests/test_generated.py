"""The generated protocol files are fresh, and the client's codes are the generated ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp_sidecar import ErrorCode
from mcp_sidecar._errors import error_from_rpc
from mcp_sidecar._generated import RPC_CODES

REPO = Path(__file__).resolve().parents[3]


def test_generated_files_are_fresh() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "clients/codegen/generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_error_codes_are_those_of_error_json() -> None:
    schema = json.loads((REPO / "proto/schema/error.json").read_text(encoding="utf-8"))
    pairs = {
        b["properties"]["data"]["properties"]["code"]["const"]: b["properties"]["code"]["const"]
        for b in schema["$defs"]["errorObject"]["anyOf"]
    }
    assert RPC_CODES == pairs
    for code, number in pairs.items():
        assert getattr(ErrorCode, code) == code
        # An error without data.code is known by its number (the first code of a shared one).
        error = error_from_rpc({"code": number, "message": "m"})
        assert error.rpc_code == number
        assert RPC_CODES[error.code] == number
