"""The blocking client's cancellation token (public as ``mcp_sidecar.sync.CancelToken``).

Its own file so that the generated methods can name it without importing the blocking client.
"""

from __future__ import annotations

import threading
from typing import Callable, List, Optional

__all__ = ["CancelToken"]


class CancelToken:
    """Cancels blocking calls from another thread (the blocking counterpart of cancelling an
    asyncio task).

    Pass it as ``cancel=`` to one or more calls; :meth:`cancel` (from any thread) sends
    ``notifications/cancelled`` for every such call in flight, and each then raises
    :class:`SidecarError` ``CANCELLED`` as soon as the sidecar answers (at once). A call started
    with a token already cancelled raises ``CANCELLED`` without sending anything.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._hooks: List[Callable[[], None]] = []
        self._sent = threading.Event()
        self._cancelled_event = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        """Cancel every call bound to this token (idempotent)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            hooks = list(self._hooks)
        self._cancelled_event.set()
        for hook in hooks:
            hook()

    def wait_cancelled(self, timeout: Optional[float] = None) -> bool:
        """Block until the token is cancelled (True), or ``timeout`` (False)."""
        return self._cancelled_event.wait(timeout)

    def wait_sent(self, timeout: Optional[float] = None) -> bool:
        """Block until a call using this token has sent its request (True), or ``timeout``."""
        return self._sent.wait(timeout)

    def _bind(self, hook: Callable[[], None]) -> bool:
        with self._lock:
            if self._cancelled:
                return False
            self._hooks.append(hook)
            return True

    def _unbind(self, hook: Callable[[], None]) -> None:
        with self._lock:
            if hook in self._hooks:
                self._hooks.remove(hook)


# Public (and shown by help() and repr) as a name of the blocking client, where users import it.
CancelToken.__module__ = "mcp_sidecar.sync"
