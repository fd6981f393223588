"""Every shared scenario (proto/scenarios/scenarios.json), through the async and the sync client."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import scenario_runner
from scenario_runner import AsyncDriver, SyncDriver, mismatches, run_scenario

SCENARIOS = scenario_runner.load_scenarios()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_scenario_async(scenario: Dict[str, Any]) -> None:
    run_scenario(scenario, AsyncDriver())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_scenario_sync(scenario: Dict[str, Any]) -> None:
    run_scenario(scenario, SyncDriver())


def test_runner_rejects_unknown_op_and_fields() -> None:
    bad_op = {"name": "x", "initialize": {}, "steps": [{"op": "teleport"}]}
    with pytest.raises(AssertionError, match="unknown op"):
        run_scenario(bad_op, SyncDriver())
    bad_field = {"name": "x", "initialize": {}, "steps": [{"op": "listServers", "colour": 1}]}
    with pytest.raises(AssertionError, match="unknown fields"):
        run_scenario(bad_field, SyncDriver())
    bad_scenario = {"name": "x", "initialize": {}, "steps": [], "extra": True}
    with pytest.raises(AssertionError, match="unknown fields"):
        run_scenario(bad_scenario, SyncDriver())
    bad_init = {"name": "x", "initialize": {"colour": "red"}, "steps": []}
    with pytest.raises(AssertionError, match="unknown initialize options"):
        run_scenario(bad_init, SyncDriver())


def test_pattern_matching() -> None:
    assert mismatches({"a": "<any>"}, {"a": None}) == []
    assert mismatches({"a": "<any>"}, {}) != []
    assert mismatches("<contains:bc>", "abcd") == []
    assert mismatches("<contains:x>", "abcd") != []
    assert mismatches([1, 2], [1, 2, 3]) != []
    assert mismatches({"a": [{"b": 1}]}, {"a": [{"b": 1, "c": 2}], "d": 3}) == []
    assert mismatches(True, 1) != []
    assert mismatches({}, {"anything": 1}) == []
