"""The sidecar's own log: warnings only by default, and its lines are records of the
application's ``logging`` (``mcp_sidecar.sidecar``), not text on the application's stderr."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import textwrap
import threading
from typing import List

import support
from mcp_sidecar import AsyncSidecar, Sidecar
from mcp_sidecar._stderr import SIDECAR_LOGGER, STDERR_LINE_BYTES, StderrReader, parse_line

SRC = os.path.join(os.path.dirname(support.HERE), "src")
MISSING = {"command": "/nonexistent/mcp-server"}  # the sidecar warns "start failed" for it


def _run_program(body: str) -> "subprocess.CompletedProcess[bytes]":
    """A new user's program: no logging set up, the sidecar's stderr left as it comes."""
    code = f"import sys; sys.path.insert(0, {SRC!r})\n" + textwrap.dedent(body)
    env = dict(os.environ)
    env.pop("MCP_SIDECAR_LOG", None)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, timeout=60, env=env, check=True
    )


def test_a_default_client_writes_no_info_lines_to_the_applications_stderr() -> None:
    done = _run_program(
        f"""
        from mcp_sidecar import Sidecar
        with Sidecar({support.SIDECAR_BIN!r}) as sidecar:
            sidecar.add_server("fx", {support.fixture_config()!r})
            assert sidecar.call_tool("mcp__fx__echo", {{"message": "hi"}})["text"] == "hi"
        print("ok")
        """
    )
    assert done.stdout == b"ok\n"
    assert b"INFO" not in done.stderr and b"host initialized" not in done.stderr, done.stderr


def test_raw_stderr_and_the_sidecars_default_level_can_still_be_asked_for() -> None:
    done = _run_program(
        f"""
        import sys
        from mcp_sidecar import Sidecar
        with Sidecar({support.SIDECAR_BIN!r}, stderr=sys.stderr, log_level=None) as sidecar:
            sidecar.ping()
        """
    )
    assert b"INFO" in done.stderr and b'"level"' not in done.stderr  # text lines, as before


class _Records(logging.Handler):
    """Collects the records of one logger; ``seen`` is set by the first matching one."""

    def __init__(self, match: str) -> None:
        super().__init__(logging.DEBUG)
        self.match = match
        self.records: List[logging.LogRecord] = []
        self.seen = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if self.match in record.getMessage():
            self.seen.set()

    def __enter__(self) -> "_Records":
        logger = logging.getLogger(SIDECAR_LOGGER)
        self.level = logger.level
        logger.setLevel(logging.DEBUG)  # what a user wanting the sidecar's INFO lines does
        logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logger = logging.getLogger(SIDECAR_LOGGER)
        logger.removeHandler(self)
        logger.setLevel(self.level)


def _check_start_failed(records: _Records) -> None:
    assert records.seen.wait(10.0), [r.getMessage() for r in records.records]
    record = next(r for r in records.records if "start failed" in r.getMessage())
    assert record.levelno == logging.WARNING and record.name == SIDECAR_LOGGER
    assert "bad" in record.getMessage() and getattr(record, "server") == "bad"
    assert record.sidecar["server"] == "bad" and "timestamp" in record.sidecar  # type: ignore[attr-defined]
    assert all(r.levelno >= logging.WARNING for r in records.records)  # warn by default


def test_sync_a_sidecar_warning_reaches_a_logging_handler() -> None:
    with _Records("start failed") as records:
        with Sidecar(support.SIDECAR_BIN) as sidecar:
            status = sidecar.add_server("bad", MISSING)
            assert status["state"] == "error"
            _check_start_failed(records)


def test_async_a_sidecar_warning_reaches_a_logging_handler() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            assert (await sidecar.add_server("bad", MISSING))["state"] == "error"
            for _ in range(500):  # the line may follow the answer; read on until it came
                if records.seen.is_set():
                    break
                await sidecar.ping()
            _check_start_failed(records)

    with _Records("start failed") as records:
        asyncio.run(main())


def test_log_level_info_lets_info_records_through() -> None:
    with _Records("host initialized") as records:
        with Sidecar(support.SIDECAR_BIN, log_level="info") as sidecar:
            sidecar.ping()
        assert any(r.levelno == logging.INFO for r in records.records)


def test_both_json_shapes_of_a_line_are_read() -> None:
    nested = '{"timestamp":"t","level":"WARN","fields":{"message":"m","server":"s"},"target":"x"}'
    flat = '{"timestamp":"t","level":"WARN","target":"x","message":"m","server":"s"}'
    for line in (nested, flat):
        level, message, fields = parse_line(line)
        assert (level, message) == (logging.WARNING, "m")
        assert fields == {"server": "s", "target": "x", "timestamp": "t"}
    assert parse_line("thread 'main' panicked at src/x.rs") == (
        logging.WARNING,
        "thread 'main' panicked at src/x.rs",
        {},
    )
    assert parse_line('{"level":"ERROR","fields":{"message":"e"}}')[0] == logging.ERROR
    assert parse_line('{"level":"DEBUG","message":"d"}')[:2] == (logging.DEBUG, "d")


def test_stderr_is_cut_into_bounded_lines_across_reads() -> None:
    got: List[bytes] = []
    reader = StderrReader(got.append)
    reader.feed(b'{"level":"WARN","message":"a')  # a line split over two reads
    reader.feed(b'"}\nsecond\n')
    reader.feed(b"x" * (STDERR_LINE_BYTES + 10) + b"\n")  # over the bound: dropped, said so
    assert got == [b'{"level":"WARN","message":"a"}', b"second", b"(an over-long stderr line was dropped)"]
