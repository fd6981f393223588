"""The sidecar's stderr, read line by line, as records of the application's ``logging``.

Owns: turning one stderr line into a record. By default the sidecar runs with
``--log-format json`` and each line is one JSON object, emitted through
``logging.getLogger("mcp_sidecar.sidecar")`` at its own level (``TRACE``/``DEBUG`` → DEBUG,
``INFO``, ``WARN`` → WARNING, ``ERROR``) with its fields as ``extra``. A line that is not such an
object (a panic, a text-format log) is emitted as it is, at WARNING: nothing the sidecar says on
stderr is lost. A ``logging.Logger`` given as ``stderr=`` keeps receiving every raw line at INFO.
Both clients feed it the bytes they read (:class:`StderrReader`), cut into lines of at most
64 KiB.
"""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any, Callable, Dict, Tuple, Union

from ._lines import LineSplitter

if TYPE_CHECKING:
    import logging

__all__ = ["SIDECAR_LOGGER", "StderrReader", "StderrTarget", "json_log_sink", "raw_log_sink"]

#: Where the sidecar's stderr (its log) goes: None (the default) runs it with
#: ``--log-format json`` and emits each line through ``logging.getLogger("mcp_sidecar.sidecar")``
#: at its level; an int (``subprocess.DEVNULL``) or a file object (``sys.stderr``: the raw lines,
#: as the host's own stderr) is handed to the process; a ``logging.Logger`` receives every raw
#: line (at INFO) from a drain task/thread. Never stdout.
StderrTarget = Union[None, int, IO[Any], "logging.Logger"]

#: The logger that receives the sidecar's own log lines by default.
SIDECAR_LOGGER = "mcp_sidecar.sidecar"

#: Longest stderr line kept whole; the rest of a longer one is dropped, and said so.
STDERR_LINE_BYTES = 1 << 16
#: tracing's level names → logging's levels.
_LEVELS = {"TRACE": 10, "DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40}
#: Keys of a line that describe the event rather than carry its fields.
_META = ("timestamp", "level", "fields")


def parse_line(text: str) -> Tuple[int, str, Dict[str, Any]]:
    """``(level, message, fields)`` of one stderr line. Both shapes of the JSON format are read:
    fields nested under ``fields`` (``fields.message``), or flattened next to ``level``."""
    try:
        event = json.loads(text)
    except ValueError:
        event = None
    if not isinstance(event, dict) or not isinstance(event.get("level"), str):
        return 30, text, {}
    fields = {k: v for k, v in event.items() if k not in _META}
    nested = event.get("fields")
    if isinstance(nested, dict):
        fields.update(nested)
    message = fields.pop("message", "")
    level = _LEVELS.get(event["level"].upper(), 30)
    if "timestamp" in event:
        fields["timestamp"] = event["timestamp"]
    return level, message if isinstance(message, str) else json.dumps(message), fields


def json_log_sink() -> Callable[[bytes], None]:
    """What each stderr line of a sidecar started with ``--log-format json`` becomes: a record
    of :data:`SIDECAR_LOGGER`. Every field is in ``record.sidecar`` (a dict), and also an
    attribute of its own unless that name is taken (``name``, ``module``, ``message``, …)."""
    import logging

    logger = logging.getLogger(SIDECAR_LOGGER)
    taken = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}

    def emit(line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip()
        if not text:
            return
        level, message, fields = parse_line(text)
        if not logger.isEnabledFor(level):
            return
        extra = {k: v for k, v in fields.items() if k not in taken}
        extra["sidecar"] = fields
        logger.log(level, "%s", message, extra=extra)

    return emit


def raw_log_sink(target: "logging.Logger") -> Callable[[bytes], None]:
    """Every stderr line as it is, at INFO, to a logger the host gave as ``stderr=``."""

    def emit(line: bytes) -> None:
        target.info("%s", line.decode("utf-8", "replace").rstrip())

    return emit


class StderrReader:
    """The sidecar's stderr bytes, as read, to ``sink`` line by line (bounded per line)."""

    def __init__(self, sink: Callable[[bytes], None]) -> None:
        self.sink = sink
        self._lines = LineSplitter(STDERR_LINE_BYTES)

    def feed(self, data: bytes) -> None:
        lines = self._lines.feed(data)
        if self._lines.overflowed:
            self._lines = LineSplitter(STDERR_LINE_BYTES)
            lines.append(b"(an over-long stderr line was dropped)")
        for line in lines:
            self.sink(line)
