"""The shared hostile scenarios (proto/scenarios/hostile/hostile.json), through the async and the
sync client: a fake sidecar misbehaves in one way each time, and every step must end within the
file's guard with the outcome it names (a hang fails the step instead of the suite)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Any, Callable, Dict, List, Optional

import pytest

from mcp_sidecar import AsyncSidecar, Sidecar, SidecarError

import support

HOSTILE_DIR = os.path.join(support.REPO_ROOT, "proto", "scenarios", "hostile")
with open(os.path.join(HOSTILE_DIR, "hostile.json"), encoding="utf-8") as _f:
    DOCUMENT: Dict[str, Any] = json.load(_f)
assert DOCUMENT["version"] == 1
SIDECAR = os.path.join(HOSTILE_DIR, DOCUMENT["sidecar"])
GUARD = DOCUMENT["stepGuardMs"] / 1000
SCENARIOS: List[Dict[str, Any]] = DOCUMENT["scenarios"]
SCENARIO_FIELDS = {"name", "mode", "args", "start", "steps"}
START_FIELDS = {"startTimeoutMs", "maxLineBytes", "closeTimeoutMs", "expectError", "messageContains"}
STEP_FIELDS = {
    "listServers": {"expect", "expectError", "messageContains"},
    "close": {"expectExit"},
}


def client_options(scenario: Dict[str, Any]) -> Dict[str, Any]:
    assert not set(scenario) - SCENARIO_FIELDS, f"unknown fields in {scenario['name']}"
    start = scenario.get("start", {})
    assert not set(start) - START_FIELDS, f"unknown start fields in {scenario['name']}"
    options: Dict[str, Any] = {
        "args": [scenario["mode"], *scenario.get("args", [])],
        "start_timeout": None,  # no bound unless the scenario gives one
    }
    if "startTimeoutMs" in start:
        options["start_timeout"] = start["startTimeoutMs"] / 1000
    if "maxLineBytes" in start:
        options["max_line_bytes"] = start["maxLineBytes"]
    if "closeTimeoutMs" in start:
        options["close_timeout"] = start["closeTimeoutMs"] / 1000
    return options


def check_error(what: str, error: Optional[BaseException], expect: Dict[str, Any]) -> None:
    code = DOCUMENT["codes"][expect["expectError"]]["python"]
    assert isinstance(error, SidecarError), f"{what}: want {code}, got {error!r}"
    assert error.code == code, f"{what}: want {code}, got {error.code}: {error.message}"
    contains = expect.get("messageContains", "")
    assert contains in error.message, f"{what}: {error.message!r} lacks {contains!r}"


def guarded(what: str, run: Callable[[], Any]) -> Any:
    """``run()`` on a daemon thread; fails if it has not returned within the guard."""
    outcome: Dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = run()
        except BaseException as exc:  # handed to the test thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(GUARD)
    if thread.is_alive():
        pytest.fail(f"{what} did not return within {GUARD} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def check_steps_sync(client: Sidecar, scenario: Dict[str, Any]) -> None:
    for i, step in enumerate(scenario.get("steps", [])):
        op, what = step["op"], f"{scenario['name']} step {i} ({step['op']})"
        assert not set(step) - STEP_FIELDS[op] - {"op"}, f"{what}: unknown fields"
        if op == "listServers":
            try:
                result: Any = guarded(what, client.list_servers)
                error: Optional[BaseException] = None
            except SidecarError as exc:
                result, error = None, exc
            if "expectError" in step:
                check_error(what, error, step)
            else:
                assert error is None and result == step["expect"], f"{what}: {error or result}"
        else:
            guarded(what, client.close)
            assert client.returncode == step["expectExit"], f"{what}: exit {client.returncode}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_hostile_sync(scenario: Dict[str, Any]) -> None:
    options = client_options(scenario)
    start = scenario.get("start", {})
    try:
        client = guarded("start", lambda: Sidecar(SIDECAR, **options))
        error: Optional[BaseException] = None
    except SidecarError as exc:
        client, error = None, exc
    if "expectError" in start:
        check_error("start", error, start)
        return
    assert client is not None, f"start: {error!r}"
    try:
        check_steps_sync(client, scenario)
    finally:
        client.close(1.0)


async def run_async(scenario: Dict[str, Any]) -> None:
    options = client_options(scenario)
    start = scenario.get("start", {})
    client = AsyncSidecar(SIDECAR, **options)
    try:
        await asyncio.wait_for(client.start(), GUARD)
        error: Optional[BaseException] = None
    except SidecarError as exc:
        error = exc
    except asyncio.TimeoutError:
        pytest.fail(f"start did not return within {GUARD} s")
    if "expectError" in start:
        check_error("start", error, start)
        return
    assert error is None, f"start: {error!r}"
    try:
        for i, step in enumerate(scenario.get("steps", [])):
            op, what = step["op"], f"{scenario['name']} step {i} ({step['op']})"
            assert not set(step) - STEP_FIELDS[op] - {"op"}, f"{what}: unknown fields"
            try:
                if op == "listServers":
                    try:
                        result: Any = await asyncio.wait_for(client.list_servers(), GUARD)
                        error = None
                    except SidecarError as exc:
                        result, error = None, exc
                    if "expectError" in step:
                        check_error(what, error, step)
                    else:
                        assert error is None and result == step["expect"], f"{what}: {error}"
                else:
                    await asyncio.wait_for(client.close(), GUARD)
                    assert client.returncode == step["expectExit"], f"{what}: {client.returncode}"
            except asyncio.TimeoutError:
                pytest.fail(f"{what} did not return within {GUARD} s")
    finally:
        await client.close(1.0)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_hostile_async(scenario: Dict[str, Any]) -> None:
    asyncio.run(run_async(scenario))
