"""The host's answers to the sidecar's own requests (protocol §17), sans-IO, shared by both clients.

Owns: which request methods the host handles (registered before start) and the ``initialize``
``capabilities`` that follow from them (nothing registered: nothing declared), the current roots
(answered by a built-in ``roots/list`` handler when the host gave roots but no handler of its
own), what a request from the sidecar is, and the line that answers it: the handler's result, the
JSON-RPC error a :class:`HandlerError` carries, -32603 for any other exception, -32601 for a
method nobody handles.

How a handler runs is the clients' business (``aio``: a task per request, cancelled by the
sidecar's ``notifications/cancelled``; ``sync``: a thread pool), so the reader is never blocked.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, cast

from ._protocol import (
    AUTHORIZE, ELICITATION, HOST_REQUEST_METHODS, ROOTS_LIST, SAMPLING, ElicitationMode, JsonObject,
    Root,
)
from ._wire import error_response_line, response_line

__all__ = [
    "HandlerError", "SidecarRequest", "HostHandlers", "answer_line", "failure_line",
    "METHOD_NOT_FOUND", "INTERNAL_ERROR",
]

#: JSON-RPC "method not found": a request nobody registered a handler for.
METHOD_NOT_FOUND = -32601
#: JSON-RPC "internal error": a handler failed with something other than :class:`HandlerError`.
INTERNAL_ERROR = -32603

_SAMPLING_FEATURES = ("tools", "context")


class HandlerError(Exception):
    """Raised by a handler to answer the sidecar's request with this JSON-RPC error, which goes
    back to the server unchanged (e.g. ``HandlerError(-1, "rejected by the user")`` for a
    sampling request the user declined)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __repr__(self) -> str:
        return f"HandlerError({self.code!r}, {self.message!r}, {self.data!r})"


class SidecarRequest(NamedTuple):
    """A request from the sidecar to the host: its id (a string ``"sidecar-N"``), method and
    params (with ``server``, the asking server's name; ``{}`` when absent)."""

    id: Any
    method: str
    params: JsonObject


class HostHandlers:
    """The host's handlers of the sidecar's requests, fixed before start.

    Args:
        handlers: request method (:data:`~mcp_sidecar.HOST_REQUEST_METHODS`) → handler. The
            handler takes the request's params and returns the result object (or an awaitable
            of it, in ``aio``).
        roots: the initial roots; given (even empty), ``roots/list`` is declared and answered
            from :attr:`roots` unless ``handlers`` has its own ``roots/list``.
        elicitation_modes: the modes declared for ``elicitation/create`` (``form`` by default).
        sampling_features: extra sampling features declared: ``"tools"``, ``"context"``.
    """

    def __init__(
        self,
        handlers: Optional[Mapping[str, Callable[..., Any]]] = None,
        roots: Optional[Sequence[Root]] = None,
        elicitation_modes: Sequence[ElicitationMode] = ("form",),
        sampling_features: Sequence[str] = (),
    ) -> None:
        self.handlers: Dict[str, Callable[..., Any]] = {}
        for method, handler in (handlers or {}).items():
            self.register(method, handler)
        if isinstance(elicitation_modes, str) or not set(elicitation_modes) <= {"form", "url"}:
            raise ValueError("elicitation_modes must be a sequence of 'form' and 'url'")
        if isinstance(sampling_features, str) or not set(sampling_features) <= set(
            _SAMPLING_FEATURES
        ):
            raise ValueError("sampling_features must be a sequence of 'tools' and 'context'")
        self.elicitation_modes = tuple(elicitation_modes)
        self.sampling_features = tuple(sampling_features)
        #: The roots the built-in ``roots/list`` handler answers with (see ``set_roots``).
        self.roots: List[Root] = [] if roots is None else _copy_roots(roots)
        self.builtin_roots = roots is not None and ROOTS_LIST not in self.handlers

    def register(self, method: str, handler: Callable[..., Any]) -> None:
        """Handle ``method`` with ``handler`` (before start: it decides ``capabilities``)."""
        if method not in HOST_REQUEST_METHODS:
            raise ValueError(
                f"no request {method!r} comes from the sidecar; handlers are for "
                f"{', '.join(HOST_REQUEST_METHODS)}"
            )
        if not callable(handler):
            raise TypeError(f"the handler of {method} is not callable")
        self.handlers[method] = handler
        if method == ROOTS_LIST:
            self.builtin_roots = False

    def handles_roots(self) -> bool:
        return self.builtin_roots or ROOTS_LIST in self.handlers

    def capabilities(self) -> Dict[str, Any]:
        """The ``initialize`` ``capabilities``: exactly what is handled (protocol §4, §17)."""
        caps: Dict[str, Any] = {}
        if SAMPLING in self.handlers:
            caps["sampling"] = {feature: {} for feature in self.sampling_features}
        if ELICITATION in self.handlers:
            caps["elicitation"] = {mode: {} for mode in self.elicitation_modes}
        if self.handles_roots():
            caps["roots"] = {"listChanged": True}
        if AUTHORIZE in self.handlers:
            caps["auth"] = {}
        return caps

    def set_roots(self, roots: Sequence[Root], started: bool) -> None:
        """Replace the roots. Before start, roots without a ``roots/list`` handler turn the
        built-in one on; once started, roots must have been declared."""
        if started and not self.handles_roots():
            raise RuntimeError(
                "roots were not declared: give the client roots= (or a roots/list handler) "
                "before it starts"
            )
        self.roots = _copy_roots(roots)
        if not started and ROOTS_LIST not in self.handlers:
            self.builtin_roots = True

    def immediate(self, request: SidecarRequest) -> Optional[bytes]:
        """The answer that needs no handler to run (the built-in roots, an unhandled method),
        else None: the client runs :meth:`lookup`'s handler concurrently."""
        if request.method == ROOTS_LIST and self.builtin_roots:
            return response_line(request.id, {"roots": list(self.roots)})
        if request.method not in self.handlers:
            return error_response_line(
                request.id, METHOD_NOT_FOUND, f"the host handles no {request.method!r} requests"
            )
        return None

    def lookup(self, method: str) -> Callable[..., Any]:
        return self.handlers[method]


def answer_line(request: SidecarRequest, result: Any) -> bytes:
    """The line answering ``request`` with a handler's ``result`` (None counts as ``{}``); a
    result that is not an object is the handler's bug: -32603 naming it."""
    if result is None:
        result = {}
    if not isinstance(result, Mapping):
        return error_response_line(
            request.id,
            INTERNAL_ERROR,
            f"the host's {request.method} handler returned {type(result).__name__}, not an object",
        )
    try:
        return response_line(request.id, dict(result))
    except (TypeError, ValueError) as exc:
        return error_response_line(
            request.id,
            INTERNAL_ERROR,
            f"the host's {request.method} handler returned what JSON cannot carry: {exc}",
        )


def failure_line(request: SidecarRequest, exc: BaseException) -> bytes:
    """The line answering ``request`` whose handler raised ``exc``."""
    if isinstance(exc, HandlerError):
        try:
            return error_response_line(request.id, exc.code, exc.message, exc.data)
        except (TypeError, ValueError):
            return error_response_line(request.id, exc.code, exc.message)
    return error_response_line(request.id, INTERNAL_ERROR, str(exc) or type(exc).__name__)


def _copy_roots(roots: Sequence[Root]) -> List[Root]:
    if isinstance(roots, (str, Mapping)):
        raise TypeError("roots must be a sequence of {uri, name?} objects")
    return [cast(Root, dict(root)) for root in roots]
