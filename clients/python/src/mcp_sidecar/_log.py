"""The package logger (``logging.getLogger("mcp_sidecar")``), imported on first use.

Owns nothing else: the ``logging`` module is imported only when the client has something to log
(a failed callback, a dropped notification, a forced kill), which keeps start-up lean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

_logger: "logging.Logger | None" = None


def logger() -> "logging.Logger":
    global _logger
    if _logger is None:
        import logging

        _logger = logging.getLogger("mcp_sidecar")
    return _logger


def warning(message: str, *args: Any) -> None:
    logger().warning(message, *args)


def error(message: str, *args: Any, **kwargs: Any) -> None:
    logger().error(message, *args, **kwargs)


def exception(message: str, *args: Any) -> None:
    logger().exception(message, *args)
