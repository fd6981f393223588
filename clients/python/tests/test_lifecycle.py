"""Starting, closing, killing, garbage collection and process exit; concurrency; malformed
output from the sidecar."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import List

import pytest

import support
from mcp_sidecar import (
    AsyncSidecar,
    ENV_VAR,
    ErrorCode,
    Sidecar,
    ServersListResult,
    SidecarError,
    __version__,
)


# -- closing -------------------------------------------------------------------------------


def test_async_close_kills_a_sidecar_that_ignores_shutdown(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(ENV_VAR, support.write_fake_sidecar(str(tmp_path)))
    pid_file = str(tmp_path / "pid")

    async def main() -> None:
        sidecar = await AsyncSidecar.open(args=["ignore-shutdown", pid_file])
        pid = support.read_pid(pid_file)
        assert pid == sidecar.pid
        started = time.monotonic()
        await sidecar.close(timeout=0.5)
        assert time.monotonic() - started < 3.0
        assert sidecar.returncode == -signal.SIGKILL
        with pytest.raises(SidecarError) as info:
            await sidecar.ping()
        assert info.value.code == ErrorCode.CONNECTION_CLOSED

    asyncio.run(main())


def test_sync_close_kills_a_sidecar_that_ignores_shutdown(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(ENV_VAR, support.write_fake_sidecar(str(tmp_path)))
    sidecar = Sidecar(args=["ignore-shutdown"], close_timeout=0.5)
    started = time.monotonic()
    sidecar.close()
    assert time.monotonic() - started < 3.0
    assert sidecar.returncode == -signal.SIGKILL


def test_close_is_graceful_idempotent_and_concurrent() -> None:
    async def main() -> None:
        sidecar = await AsyncSidecar.open(support.SIDECAR_BIN)
        await sidecar.add_server("fx", support.fixture_config())
        pid = (await sidecar.list_servers())["servers"][0]["pid"]
        slow = asyncio.ensure_future(sidecar.call_tool("mcp__fx__sleep", {"ms": 30000}))
        await asyncio.sleep(0)
        await asyncio.gather(sidecar.close(), sidecar.close())
        await sidecar.close()
        assert sidecar.returncode == 0
        assert support.pid_gone(pid)  # shutdown answers only once the server is gone
        with pytest.raises(SidecarError) as info:
            await slow
        assert info.value.code in ("SHUTTING_DOWN", ErrorCode.CONNECTION_CLOSED)

    asyncio.run(main())

    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.shutdown()  # the RPC alone; close() then just waits
    assert sidecar.returncode == 0
    sidecar.close()


def test_sidecar_death_fails_pending_calls() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            slow = asyncio.ensure_future(sidecar.call_tool("mcp__fx__sleep", {"ms": 30000}))
            await sidecar.ping()
            assert sidecar.pid is not None
            os.kill(sidecar.pid, signal.SIGKILL)
            with pytest.raises(SidecarError) as info:
                await asyncio.wait_for(slow, 5.0)
            assert info.value.code == ErrorCode.CONNECTION_CLOSED
            assert info.value.data["exitCode"] == -signal.SIGKILL

    asyncio.run(main())

    with Sidecar(support.SIDECAR_BIN) as sidecar:
        os.kill(sidecar.pid, signal.SIGKILL)
        with pytest.raises(SidecarError) as info:
            sidecar.ping(timeout=5.0)
        assert info.value.code == ErrorCode.CONNECTION_CLOSED


# -- garbage collection and process exit -------------------------------------------------------


def _server_pid(status_list: ServersListResult) -> int:
    return int(status_list["servers"][0]["pid"])


def test_sync_client_collected_without_close_stops_the_sidecar() -> None:
    sidecar = Sidecar(support.SIDECAR_BIN)
    sidecar.add_server("fx", support.fixture_config())
    sidecar_pid, server_pid = sidecar.pid, _server_pid(sidecar.list_servers())
    del sidecar
    gc.collect()
    assert support.wait_until(lambda: support.pid_gone(server_pid), 5.0)
    assert support.wait_until(lambda: support.pid_gone(sidecar_pid), 5.0)


def test_async_client_collected_without_close_stops_the_sidecar() -> None:
    async def main() -> None:
        sidecar = await AsyncSidecar.open(support.SIDECAR_BIN)
        await sidecar.add_server("fx", support.fixture_config())
        sidecar_pid, server_pid = sidecar.pid, _server_pid(await sidecar.list_servers())
        assert sidecar_pid is not None
        connection = sidecar._conn  # internal: lets the test see the end; holds no client ref
        assert connection is not None
        del sidecar
        gc.collect()
        deadline = time.monotonic() + 5.0
        while not (support.pid_gone(server_pid) and support.pid_gone(sidecar_pid)):
            assert time.monotonic() < deadline, "the sidecar outlived its collected client"
            await asyncio.sleep(0.02)
        # The connection reports the end once the exit is observed (its transport then closes).
        await asyncio.wait_for(asyncio.shield(connection.finished), 5.0)
        assert connection.error is not None
        assert connection.error.code == ErrorCode.CONNECTION_CLOSED

    asyncio.run(main())


EXIT_WITHOUT_CLOSE = """
import asyncio, sys
sys.path.insert(0, {src!r})
from mcp_sidecar import AsyncSidecar, Sidecar
kind, binary, fixture = sys.argv[1:4]
if kind == "sync":
    sidecar = Sidecar(binary)
    sidecar.add_server("fx", {{"command": fixture}})
    print(sidecar.pid, sidecar.list_servers()["servers"][0]["pid"], flush=True)
else:
    async def main():
        sidecar = await AsyncSidecar.open(binary)
        await sidecar.add_server("fx", {{"command": fixture}})
        print(sidecar.pid, (await sidecar.list_servers())["servers"][0]["pid"], flush=True)
        return sidecar  # still referenced when the interpreter exits
    keep = asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_python_exit_without_close_stops_the_sidecar(kind: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "exit_without_close.py"
    src = os.path.join(os.path.dirname(support.HERE), "src")
    script.write_text(EXIT_WITHOUT_CLOSE.format(src=src))
    done = subprocess.run(
        [sys.executable, str(script), kind, support.SIDECAR_BIN, support.FIXTURE_BIN],
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr.decode()
    sidecar_pid, server_pid = map(int, done.stdout.split())
    assert support.wait_until(lambda: support.pid_gone(server_pid), 5.0)
    assert support.wait_until(lambda: support.pid_gone(sidecar_pid), 5.0)


# -- concurrency -------------------------------------------------------------------------------


def test_async_many_calls_in_flight_from_many_tasks() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("a", support.fixture_config())
            await sidecar.add_server("b", support.fixture_config())

            async def worker(w: int) -> None:
                for i in range(20):
                    server = "a" if (w + i) % 2 else "b"
                    message = f"{w}/{i}"
                    result = await sidecar.call_tool(f"mcp__{server}__echo", {"message": message})
                    assert (result["text"], result["server"]) == (message, server)

            await asyncio.wait_for(asyncio.gather(*(worker(w) for w in range(64))), 60.0)

    asyncio.run(main())


def test_sync_many_calls_from_many_threads() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("a", support.fixture_config())
        failures: List[str] = []

        def worker(w: int) -> None:
            try:
                for i in range(25):
                    message = f"{w}/{i}"
                    text = sidecar.call_tool("mcp__a__echo", {"message": message}, timeout=30)["text"]
                    if text != message:
                        failures.append(f"{message} -> {text}")
            except Exception as exc:  # pragma: no cover - reported below
                failures.append(repr(exc))

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60.0)
        assert not any(t.is_alive() for t in threads)
        assert failures == []


# -- malformed output --------------------------------------------------------------------------


def test_line_over_max_line_bytes_closes_the_client(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fake = support.write_fake_sidecar(str(tmp_path))

    async def main() -> None:
        sidecar = await AsyncSidecar.open(fake, args=["huge-line"], max_line_bytes=1024)
        with pytest.raises(SidecarError) as info:
            await sidecar.ping(timeout=5.0)
        assert info.value.code == ErrorCode.LINE_TOO_LARGE
        assert info.value.data["limit"] == 1024
        await sidecar.close()

    asyncio.run(main())
    sidecar = Sidecar(fake, args=["huge-line"], max_line_bytes=1024)
    with pytest.raises(SidecarError) as info:
        sidecar.ping(timeout=5.0)
    assert info.value.code == ErrorCode.LINE_TOO_LARGE
    sidecar.close()


def test_non_json_output_closes_the_client(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fake = support.write_fake_sidecar(str(tmp_path))
    sidecar = Sidecar(fake, args=["garbage"])
    with pytest.raises(SidecarError) as info:
        sidecar.ping(timeout=5.0)
    assert info.value.code == ErrorCode.INVALID_MESSAGE
    sidecar.close()


# -- misc --------------------------------------------------------------------------------------


def test_stderr_to_a_logger_never_reaches_stdout(caplog) -> None:  # type: ignore[no-untyped-def]
    log = logging.getLogger("test.sidecar.stderr")
    with caplog.at_level(logging.INFO, logger="test.sidecar.stderr"):
        with Sidecar(support.SIDECAR_BIN, stderr=log, args=["--log", "info"]) as sidecar:
            sidecar.add_server("fx", support.fixture_config())
        assert any("server ready" in r.getMessage() for r in caplog.records)


def test_initialize_options_reach_the_sidecar() -> None:
    with Sidecar(
        support.SIDECAR_BIN,
        tool_format="anthropic",
        name_template="{server}_{tool}",
        max_name_length=32,
    ) as sidecar:
        assert sidecar.initialize_result["protocolVersion"] == 1
        sidecar.add_server("fx", support.fixture_config())
        tools = sidecar.list_tools()
        assert tools["tools"][0]["name"] == "fx_echo"
        assert "input_schema" in tools["tools"][0]["definition"]
        openai = sidecar.list_tools("openai", ["fx"])
        assert openai["tools"][0]["definition"]["type"] == "function"
    with pytest.raises(SidecarError) as info:
        Sidecar(support.SIDECAR_BIN, max_name_length=5)
    assert info.value.code == "INVALID_PARAMS" and info.value.method == "initialize"


def test_version_matches_the_crate() -> None:
    with open(os.path.join(support.REPO_ROOT, "Cargo.toml"), encoding="utf-8") as f:
        cargo = f.read()
    workspace = cargo.split("[workspace.package]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', workspace, re.M)
    assert match is not None and match.group(1) == __version__


def test_sync_import_does_not_import_asyncio() -> None:
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {os.path.join(os.path.dirname(support.HERE), 'src')!r})
        import mcp_sidecar
        assert "asyncio" not in sys.modules, "asyncio imported"
        assert mcp_sidecar.AsyncSidecar.__name__ == "AsyncSidecar"
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)
