"""Python client of ``mcp-sidecar``: one Rust process that supervises MCP servers and hands the
host provider-ready tools over host protocol v1 (JSON-RPC 2.0 on its stdin/stdout).

- :class:`AsyncSidecar` (``mcp_sidecar.aio``): the asyncio client.
- :class:`Sidecar` (``mcp_sidecar.sync``): the blocking client (threads welcome), with
  :class:`CancelToken` to cancel its calls from another thread.
- :class:`SidecarError`: the one exception type (``code``, ``message``, ``data``, ``rpc_code``);
  its timeouts are :class:`SidecarTimeoutError` (also a ``TimeoutError``) and its cancellations
  :class:`SidecarCancelledError` (also a ``concurrent.futures.CancelledError``).
- :class:`HandlerError`: raised by the host's handler of a sidecar request (sampling,
  elicitation, roots, OAuth browser step) to answer it with a JSON-RPC error.
- :func:`find_sidecar_bin`: where the sidecar binary is looked for.

``AsyncSidecar`` is imported lazily so that a program using only the blocking client does not pay
for importing asyncio.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._binary import ENV_VAR, find_sidecar_bin
from ._errors import (
    CLIENT_RPC_CODE, ErrorCode, SidecarCancelledError, SidecarError, SidecarTimeoutError,
)
from ._handlers import HandlerError
from . import _generated, _protocol
from ._generated import *  # noqa: F403 - the protocol's shapes (generated from its schema)
from ._protocol import *  # noqa: F403 - and its constants
from ._version import __version__
from .sync import CancelToken, Sidecar

if TYPE_CHECKING:
    from .aio import AsyncSidecar

__all__ = [
    "AsyncSidecar", "Sidecar", "CancelToken", "SidecarError", "SidecarTimeoutError",
    "SidecarCancelledError", "HandlerError", "ErrorCode", "CLIENT_RPC_CODE", "find_sidecar_bin",
    "ENV_VAR", "__version__",
]
__all__ += _generated.__all__
__all__ += _protocol.__all__


def __getattr__(name: str) -> Any:
    if name == "AsyncSidecar":
        from .aio import AsyncSidecar

        return AsyncSidecar
    raise AttributeError(f"module 'mcp_sidecar' has no attribute {name!r}")
