"""SidecarError: one type, stable ``code``, ``message``, ``data`` dict, numeric ``rpc_code``."""

from __future__ import annotations

import asyncio
import pickle
import subprocess

import pytest

import support
from mcp_sidecar import AsyncSidecar, ErrorCode, Sidecar, SidecarError
from mcp_sidecar._errors import error_from_rpc


def test_fields_of_a_sidecar_error() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        with pytest.raises(SidecarError) as info:
            sidecar.call_tool("mcp__fx__echo", {"message": 42})
        err = info.value
        assert err.code == ErrorCode.INVALID_ARGUMENTS == "INVALID_ARGUMENTS"
        assert err.rpc_code == -32021
        assert err.method == "tools/call"
        assert "echo" in err.message
        assert err.data["code"] == "INVALID_ARGUMENTS"
        assert err.data["server"] == "fx" and err.data["tool"] == "echo"
        assert err.violations and err.violations[0]["path"] == "/message"
        assert str(err).startswith("INVALID_ARGUMENTS (tools/call): ")
        with pytest.raises(SidecarError) as info:
            sidecar.remove_server("nope")
        assert (info.value.code, info.value.rpc_code) == ("SERVER_NOT_FOUND", -32012)


def test_stderr_tail_of_a_crashed_server() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config("--stderr-line", "famous last words"))
            with pytest.raises(SidecarError) as info:
                await sidecar.call_tool("mcp__fx__exit", {"code": 7})
            err = info.value
            assert err.code == "SERVER_UNAVAILABLE" and err.rpc_code == -32013
            assert "famous last words" in (err.data.get("stderrTail") or "")
            assert err.stderr_tail == err.data.get("stderrTail")

    asyncio.run(main())


def test_client_side_errors_have_rpc_code_zero() -> None:
    sidecar = Sidecar(support.SIDECAR_BIN)
    sidecar.close()
    with pytest.raises(SidecarError) as info:
        sidecar.ping()
    assert info.value.code == ErrorCode.CONNECTION_CLOSED
    assert info.value.rpc_code == 0
    assert info.value.data["code"] == ErrorCode.CONNECTION_CLOSED


def test_unsendable_params_fail_before_sending() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        with pytest.raises(SidecarError) as info:
            sidecar.call_tool("x", {"n": float("nan")})
        assert info.value.code == ErrorCode.INVALID_PARAMS and info.value.rpc_code == 0
        with pytest.raises(SidecarError):
            sidecar.call_tool("x", {"s": "\ud800"})
        sidecar.ping()  # the session is intact


def test_request_over_the_sidecar_line_bound_is_refused_locally() -> None:
    with Sidecar(support.SIDECAR_BIN, args=["--max-line-bytes", "2048"]) as sidecar:
        with pytest.raises(SidecarError) as info:
            sidecar.call_tool("x", {"s": "y" * 4096})
        err = info.value
        assert err.code == ErrorCode.MESSAGE_TOO_LARGE
        assert err.data["limit"] == 2048 and err.data["setting"] == "--max-line-bytes"
        sidecar.ping()


def test_error_from_rpc_is_tolerant() -> None:
    err = error_from_rpc({"code": -32012, "message": "gone"})
    assert err.code == "SERVER_NOT_FOUND" and err.data == {"code": "SERVER_NOT_FOUND"}
    err = error_from_rpc({"code": -31999, "message": "new", "data": {"code": "SOMETHING_NEW", "x": 1}})
    assert err.code == "SOMETHING_NEW" and err.data["x"] == 1 and err.rpc_code == -31999
    err = error_from_rpc("nonsense")
    assert err.code == ErrorCode.INVALID_MESSAGE


def test_pickle_round_trip() -> None:
    err = SidecarError("TOOL_TIMEOUT", "slow", {"limit": 5}, -32022, "tools/call")
    back = pickle.loads(pickle.dumps(err))
    assert (back.code, back.message, back.data, back.rpc_code, back.method) == (
        err.code, err.message, err.data, err.rpc_code, err.method
    )


def test_spawn_failure_and_early_exit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    not_a_program = tmp_path / "mcp-sidecar"
    not_a_program.write_text("this is not a program\n")
    not_a_program.chmod(0o755)
    with pytest.raises(SidecarError) as info:
        Sidecar(str(not_a_program))
    assert info.value.code == ErrorCode.SPAWN_FAILED and info.value.data["binary"] == str(not_a_program)

    async def main() -> None:
        with pytest.raises(SidecarError) as info:
            await AsyncSidecar.open(str(not_a_program))
        assert info.value.code == ErrorCode.SPAWN_FAILED
        with pytest.raises(SidecarError) as info:  # the sidecar rejects the flag and exits 2
            await AsyncSidecar.open(support.SIDECAR_BIN, args=["--no-such-flag"], stderr=subprocess.DEVNULL)
        assert info.value.code == ErrorCode.CONNECTION_CLOSED
        assert info.value.data["exitCode"] == 2 and info.value.method == "initialize"

    asyncio.run(main())
    with pytest.raises(SidecarError) as info:
        Sidecar(support.SIDECAR_BIN, args=["--no-such-flag"], stderr=subprocess.DEVNULL)
    assert info.value.code == ErrorCode.CONNECTION_CLOSED and info.value.data["exitCode"] == 2
