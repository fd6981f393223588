"""servers/load, servers/test, results/read and the trust gate, against the real sidecar and
fixture server, through both clients."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any, Dict

import pytest

import support
from mcp_sidecar import AsyncSidecar, ErrorCode, Sidecar, SidecarError

T = support.CALL_TIMEOUT
FIXTURE_TOOLS = 7

# A claude-desktop file: one good server, one without `command` (a diagnostic, not an error).
DESKTOP_CONFIG: Dict[str, Any] = {
    "mcpServers": {
        "fx": {"command": support.FIXTURE_BIN, "args": []},
        "broken": {"args": ["--nothing"]},
    }
}
TRUNCATE_CONFIG = dict(
    support.fixture_config(), resultPolicy="truncate", maxResultBytes=4096
)
LARGE_BYTES = 20000


def _check_load(result: Any) -> None:
    assert [s["name"] for s in result["added"]] == ["fx"]
    added = result["added"][0]
    assert added["state"] == "ready"
    assert added["toolsCount"] == FIXTURE_TOOLS
    assert added["transport"] == "stdio"
    assert added["source"] in ("user", "host")
    assert (added["restarts"], added["calls"], added["errors"]) == (0, 0, 0)
    assert result["trustRequired"] == []
    [diagnostic] = result["diagnostics"]
    assert diagnostic["severity"] == "error"
    assert diagnostic["server"] == "broken"
    assert diagnostic["path"].startswith("mcpServers.broken")


def _check_test_report(report: Any) -> None:
    assert report["state"] == "ready"
    assert report["transport"] == "stdio"
    assert report["toolsCount"] == FIXTURE_TOOLS
    assert len(report["tools"]) == FIXTURE_TOOLS and "large" in report["tools"]
    assert report["timings"]["startupMs"] >= 0 and "listMs" in report["timings"]
    assert "error" not in report


def _check_truncated(result: Any) -> Dict[str, Any]:
    truncated = result["truncated"]
    assert truncated["totalBytes"] == LARGE_BYTES
    assert truncated["length"] > 0 and truncated["offset"] > 0
    assert isinstance(truncated["handle"], str)
    assert len(result["text"].encode()) < 4096
    return truncated


# -- sync ----------------------------------------------------------------------------------


def test_sync_load_servers_adds_and_diagnoses() -> None:
    with Sidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
        result = sidecar.load_servers(json=DESKTOP_CONFIG, dialect="claude-desktop", timeout=T)
        _check_load(result)
        assert [s["name"] for s in sidecar.list_servers(timeout=T)["servers"]] == ["fx"]
        tools = sidecar.list_tools(strict=True, timeout=T)["tools"]
        assert len(tools) == FIXTURE_TOOLS
        assert all(isinstance(t["conversionNotes"], list) for t in tools)


def test_sync_load_servers_from_a_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps(DESKTOP_CONFIG))
    with Sidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
        result = sidecar.load_servers(path, timeout=T)
        assert [s["name"] for s in result["added"]] == ["fx"]
        assert result["diagnostics"][0]["file"].endswith("claude_desktop_config.json")


def test_load_servers_takes_exactly_one_source() -> None:
    with Sidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
        with pytest.raises(TypeError):
            sidecar.load_servers()
        with pytest.raises(TypeError):
            sidecar.load_servers("x.json", text="{}")


def test_sync_test_server_registers_nothing() -> None:
    with Sidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
        report = sidecar.test_server(support.fixture_config(), name="probe", timeout=T)
        _check_test_report(report)
        assert sidecar.list_servers(timeout=T)["servers"] == []
        assert sidecar.list_tools(timeout=T)["tools"] == []


def test_sync_truncated_call_then_read_result() -> None:
    with Sidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
        assert sidecar.add_server("big", TRUNCATE_CONFIG, timeout=T)["state"] == "ready"
        result = sidecar.call_tool(
            "mcp__big__large", {"bytes": LARGE_BYTES}, format="mcp", timeout=T
        )
        assert isinstance(result["output"], dict)  # the raw CallToolResult (format="mcp")
        truncated = _check_truncated(result)
        chunk = sidecar.read_result(
            truncated["handle"], truncated["offset"], truncated["length"], timeout=T
        )
        assert chunk["offset"] == truncated["offset"]
        assert chunk["length"] == truncated["length"] == len(chunk["text"])
        assert chunk["text"] == "x" * truncated["length"]
        assert chunk["totalBytes"] == LARGE_BYTES
        assert not chunk["eof"]  # the cut part is the middle: head and tail were kept
        whole = sidecar.read_result(truncated["handle"], timeout=T)
        assert whole["text"] == "x" * LARGE_BYTES and whole["eof"]
        status = sidecar.list_servers(timeout=T)["servers"][0]
        assert status["calls"] == 1 and status["errors"] == 0
        with pytest.raises(SidecarError) as info:
            sidecar.read_result("r-999", timeout=T)
        assert info.value.code == ErrorCode.RESULT_EXPIRED
        assert info.value.rpc_code == -32024
        assert info.value.data["handle"] == "r-999"


def test_sync_trust_required_round_trip() -> None:
    with Sidecar(support.SIDECAR_BIN, require_trust=True, stderr=subprocess.DEVNULL) as sidecar:
        assert sidecar.initialize_result["capabilities"].get("trust") is True
        config = support.fixture_config()
        with pytest.raises(SidecarError) as info:
            sidecar.add_server("fx", config, timeout=T)
        error = info.value
        assert error.code == ErrorCode.TRUST_REQUIRED and error.rpc_code == -32014
        digest = error.data["digest"]
        assert digest.startswith("sha256:") and error.data["server"] == "fx"
        assert sidecar.list_servers(timeout=T)["servers"] == []  # nothing registered
        with pytest.raises(SidecarError) as info:
            sidecar.test_server(config, timeout=T)
        assert info.value.code == ErrorCode.TRUST_REQUIRED
        assert sidecar.test_server(config, name="fx", trust=digest, timeout=T)["state"] == "ready"
        assert sidecar.add_server("fx", config, trust=digest, timeout=T)["state"] == "ready"
        # servers/load holds untrusted servers back in trustRequired, then takes the digests.
        document = {"mcpServers": {"other": support.fixture_config()}}
        held = sidecar.load_servers(json=document, timeout=T)
        assert held["added"] == []
        [request] = held["trustRequired"]
        assert request["name"] == "other"
        loaded = sidecar.load_servers(
            json=document, trust={"other": request["digest"]}, timeout=T
        )
        assert [s["name"] for s in loaded["added"]] == ["other"]
        assert loaded["trustRequired"] == []


# -- asyncio -------------------------------------------------------------------------------


def test_async_load_test_read_and_trust() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN, stderr=subprocess.DEVNULL) as sidecar:
            _check_load(
                await sidecar.load_servers(
                    json=DESKTOP_CONFIG, dialect="claude-desktop", timeout=T
                )
            )
            _check_test_report(await sidecar.test_server(support.fixture_config(), timeout=T))
            assert [s["name"] for s in (await sidecar.list_servers(timeout=T))["servers"]] == [
                "fx"
            ]
            await sidecar.add_server("big", TRUNCATE_CONFIG, timeout=T)
            result = await sidecar.call_tool(
                "mcp__big__large", {"bytes": LARGE_BYTES}, format="anthropic", timeout=T
            )
            assert isinstance(result["output"], list)  # anthropic content blocks
            truncated = _check_truncated(result)
            rest = ""
            offset = truncated["offset"]
            while len(rest) < truncated["length"]:  # small pages, to exercise offset/length
                chunk = await sidecar.read_result(
                    truncated["handle"], offset, min(1000, truncated["length"] - len(rest)),
                    timeout=T,
                )
                rest += chunk["text"]
                offset += chunk["length"]
            assert rest == "x" * truncated["length"]
            with pytest.raises(SidecarError) as info:
                await sidecar.read_result("r-999", timeout=T)
            assert info.value.code == ErrorCode.RESULT_EXPIRED

        async with AsyncSidecar(
            support.SIDECAR_BIN, require_trust=True, strict=True, stderr=subprocess.DEVNULL
        ) as sidecar:
            with pytest.raises(SidecarError) as info:
                await sidecar.add_server("fx", support.fixture_config(), timeout=T)
            assert info.value.code == ErrorCode.TRUST_REQUIRED
            status = await sidecar.add_server(
                "fx", support.fixture_config(), trust=info.value.data["digest"], timeout=T
            )
            assert status["state"] == "ready"

    asyncio.run(main())
