"""What a client is configured with, and what follows from it before anything runs.

Owns: validating the constructor options shared by both clients, the command line that spawns the
sidecar (with its log level and format), where its stderr goes, and the ``initialize`` params.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, cast

from ._binary import find_sidecar_bin
from ._generated import (  # noqa: F401 - the defaults, re-exported (DEFAULT_*)
    DEFAULT_LOG_QUEUE_SIZE, DEFAULT_MAX_LINE_BYTES, DEFAULT_NOTIFICATION_QUEUE_SIZE, OPTION_DEFAULTS,
)
from ._handlers import HostHandlers
from ._methods import _OptionFields, check_options
from ._protocol import PROTOCOL_VERSION
from ._stderr import StderrReader, StderrTarget, json_log_sink, raw_log_sink
from ._version import __version__

if TYPE_CHECKING:
    import logging

__all__ = [
    "Options", "StderrTarget", "DEFAULT_MAX_LINE_BYTES", "DEFAULT_NOTIFICATION_QUEUE_SIZE",
    "DEFAULT_LOG_QUEUE_SIZE",
]

#: The sidecar's own default bound on a request line (``--max-line-bytes``).
SIDECAR_DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


class Options(_OptionFields):
    """The constructor options shared by both clients, validated."""

    handlers: HostHandlers

    def __init__(self, arguments: Mapping[str, Any] = {}) -> None:
        """Options from a constructor's ``locals()`` (``self`` and ``close_timeout`` ignored);
        the others take their defaults."""
        values = {name: arguments.get(name, default) for name, default in OPTION_DEFAULTS.items()}
        check_options(values)
        stderr = values["stderr"]
        if isinstance(stderr, int) and stderr == subprocess.STDOUT:
            raise ValueError("the sidecar's stderr must never be mixed into its stdout")
        values["args"] = tuple(values["args"])
        values["handlers"] = HostHandlers(
            values.pop("handlers"),
            values.pop("roots"),
            values.pop("elicitation_modes"),
            values.pop("sampling_features"),
        )
        self.__dict__.update(values)

    def stderr_logger(self) -> Optional["logging.Logger"]:
        """The logger that receives the sidecar's stderr, if ``stderr`` is one."""
        module = sys.modules.get("logging")  # a Logger given implies logging is imported
        if module is not None and isinstance(self.stderr, module.Logger):
            return cast("logging.Logger", self.stderr)
        return None

    def stderr_reader(self) -> Optional[StderrReader]:
        """Where the sidecar's stderr goes when the client reads it: the ``mcp_sidecar.sidecar``
        logger by default, a logger given as ``stderr``; None when the process writes it
        elsewhere itself."""
        target = self.stderr_logger()
        if target is not None:
            return StderrReader(raw_log_sink(target))
        return StderrReader(json_log_sink()) if self.stderr is None else None

    def argv(self) -> List[str]:
        """The command line: the binary found per ``find_sidecar_bin``, ``args``, then
        ``--log LEVEL`` (unless ``args`` or ``MCP_SIDECAR_LOG`` set a filter) and, when the
        client turns stderr into log records, ``--log-format json`` (unless ``args`` chose)."""
        # One token each (``--log=warn``): a wrapper script reading positional arguments sees
        # flags it can skip, not a stray value.
        argv = [find_sidecar_bin(self.binary), *self.args]
        env = os.environ if self.env is None else self.env
        if self.log_level is not None and not _has_flag(self.args, "--log"):
            if "MCP_SIDECAR_LOG" not in env:
                argv.append(f"--log={self.log_level}")
        if self.stderr is None and not _has_flag(self.args, "--log-format"):
            argv.append("--log-format=json")
        return argv

    def popen_kwargs(self) -> Dict[str, Any]:
        """The spawn's arguments besides the command line, the same for both clients: pipes for
        stdin and stdout, stderr per ``stderr`` (what the client reads gets a pipe), the
        environment and working directory, and a session of its own on POSIX."""
        stderr = self.stderr
        if stderr is None or self.stderr_logger() is not None:
            stderr = subprocess.PIPE
        return {
            "stdin": subprocess.PIPE,
            "stdout": subprocess.PIPE,
            "stderr": stderr,
            "env": None if self.env is None else dict(self.env),
            "cwd": None if self.cwd is None else os.fspath(self.cwd),
            "start_new_session": os.name == "posix",
        }

    def initialize_params(self) -> Dict[str, Any]:
        """The ``initialize`` params: the protocol version, then each option given (an option
        left at None is left to the sidecar's default)."""
        info = self.client_info
        params: Dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientInfo": dict(info or {"name": "mcp-sidecar-python", "version": __version__}),
        }
        given = {
            "toolFormat": self.tool_format,
            "strict": self.strict,
            "nameTemplate": self.name_template,
            "maxNameLength": self.max_name_length,
            "requireTrust": True if self.require_trust else None,
            # Nothing handled: nothing declared, as before handlers existed.
            "capabilities": self.handlers.capabilities() or None,
            "serverLogs": self.server_logs,
            "answerTimeoutMs": self.answer_timeout_ms,
        }
        params.update((key, value) for key, value in given.items() if value is not None)
        return params

    def max_request_bytes(self) -> int:
        """The sidecar's bound on a request line: ``--max-line-bytes`` in ``args``, else its
        default. A longer request would be answered with ``id: null`` (no way to tie it to the
        request), so the client refuses it before sending."""
        return _flag_value(self.args, "--max-line-bytes", SIDECAR_DEFAULT_MAX_LINE_BYTES)


def _flag_value(args: Sequence[str], flag: str, default: int) -> int:
    value: Optional[str] = None
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(flag + "="):
            value = arg[len(flag) + 1 :]
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        return default


def _has_flag(args: Sequence[str], flag: str) -> bool:
    return any(arg == flag or arg.startswith(flag + "=") for arg in args)
