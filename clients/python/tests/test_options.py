"""The constructor options' checks (generated from the codegen table): each bad value is refused
before anything runs, by an error naming the option; the defaults pass."""

from __future__ import annotations

import subprocess
from typing import Any, Dict, Type

import pytest

from mcp_sidecar._options import Options


@pytest.mark.parametrize(
    "option, value, error",
    [
        ("args", "--log debug", TypeError),
        ("max_line_bytes", 1023, ValueError),
        ("notification_queue_size", -1, ValueError),
        ("log_queue_size", -1, ValueError),
        ("start_timeout", 0, ValueError),
        ("stderr", subprocess.STDOUT, ValueError),
    ],
)
def test_a_bad_option_is_refused_naming_it(option: str, value: Any, error: Type[Exception]) -> None:
    with pytest.raises(error) as raised:
        Options({option: value})
    assert (option if option != "stderr" else "stdout") in str(raised.value)


def test_the_defaults_and_the_bounds_themselves_pass() -> None:
    bounds: Dict[str, Any] = {
        "max_line_bytes": 1024, "notification_queue_size": 0, "log_queue_size": 0,
        "start_timeout": None, "args": ["--log", "debug"],
    }
    options = Options(bounds)
    assert options.max_line_bytes == 1024 and options.args == ("--log", "debug")
    assert Options().max_line_bytes == 64 * 1024 * 1024
