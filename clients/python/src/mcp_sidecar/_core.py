"""The one protocol core of both clients (``aio`` and ``sync``): sans-IO, no pipes, threads or loop.

:class:`Session` holds one connection's state and makes what it reads into events: it cuts
stdout's bytes into lines (bounded by ``max_line_bytes``) and routes each line (a response settles
its waiter, a notification goes to the bounded queues and the callbacks, progress and logs to
theirs, the sidecar's requests to the host's handlers). It owns request ids and the pending table
(every request ends exactly once: its response, its timeout, its cancellation, or the end of the
connection), the line of each request (bounded by the sidecar's ``--max-line-bytes``), the steps
of closing and what ending the connection does, and the errors the client raises on its own.

The clients drive it: ``aio`` from its event loop (the subprocess protocol's callbacks and timer
handles), ``sync`` from whichever thread holds its read role, under its lock. How a waiter is woken
and how a handler runs are theirs: the core calls ``settle(waiter, result, error)``, given at
construction, and the hooks :class:`Session` names.
"""

from __future__ import annotations

from collections import deque
from contextlib import nullcontext
from time import monotonic as _monotonic
from typing import (
    TYPE_CHECKING, Any, Callable, Deque, Dict, Generic, List, Mapping, Optional, Sequence, Tuple,
    TypeVar, Union,
)

from . import _log
from ._errors import ErrorCode, SidecarError, client_error, error_from_rpc
from ._handlers import SidecarRequest
from ._protocol import (
    CANCELLED, PROGRESS, SERVER_LOG, SERVERS_CHANGED, JsonObject, Notification, ProgressParams,
    ServerStatus,
)
from ._lines import LineSplitter
from ._wire import cancel_line, decode_line, encode_notification, encode_request

if TYPE_CHECKING:
    from ._options import Options

__all__ = [
    "Session", "Notifications", "classify", "line_too_large", "spawn_failed",
    "kill_late", "wrong_event_loop",
]

#: The lock of a client that needs none (one event loop drives it).
_NO_LOCK = nullcontext()


def _nothing() -> None:
    pass


W = TypeVar("W")
C = TypeVar("C", bound=Callable[..., Any])
#: Wakes a waiter with its outcome: ``(waiter, result, None)`` or ``(waiter, None, error)``.
Settle = Callable[[W, Any, Optional[SidecarError]], None]


class Notifications(Generic[C]):
    """The callbacks and the bounded queue behind ``notifications()``: when full, the oldest
    item is dropped (counted in :attr:`dropped`, logged once)."""

    def __init__(self, queue_size: int, what: str = "notification", advice: str = "") -> None:
        self.what = what
        self.advice = advice or "iterate notifications() or raise notification_queue_size"
        self.callbacks: Tuple[C, ...] = ()
        self.queue_size = queue_size
        self.queue: Optional[Deque[Notification]] = deque() if queue_size > 0 else None
        self.dropped = 0
        #: No more items will come (the connection ended); iterators end once it is empty.
        self.ended = False
        #: Held around the queue, and what wakes its readers: the client's (a condition, an
        #: event), set after construction.
        self.guard: Any = _NO_LOCK
        self.wake: Callable[[], None] = _nothing

    def add_callback(self, callback: C) -> Callable[[], None]:
        self.callbacks = self.callbacks + (callback,)

        def remove() -> None:
            self.callbacks = tuple(cb for cb in self.callbacks if cb is not callback)

        return remove

    def push(self, notification: Notification) -> None:
        queue = self.queue
        if queue is None or self.ended:
            return
        if len(queue) >= self.queue_size:
            queue.popleft()
            self.dropped += 1
            if self.dropped == 1:
                _log.warning(
                    "mcp-sidecar %s queue full (%d): dropping the oldest; %s",
                    self.what,
                    self.queue_size,
                    self.advice,
                )
        queue.append(notification)

    def put(self, notification: Notification) -> None:
        """:meth:`push` under the guard, waking the readers."""
        with self.guard:
            self.push(notification)
            self.wake()

    def end(self) -> None:
        """No more items will come: wake the readers, which end once the queue is empty."""
        with self.guard:
            self.ended = True
            self.wake()

    def require_queue(self) -> Deque[Notification]:
        if self.queue is None:
            raise RuntimeError("notification_queue_size=0: use on_notification() instead")
        return self.queue

    def run_callbacks(self, notification: Notification, callbacks: Sequence[C]) -> List[Any]:
        """Call each callback (exceptions are logged); returns what they returned other than
        None (awaitables, for ``aio`` to run as tasks)."""
        outcomes = (_call(callback, notification, "notification") for callback in callbacks)
        return [outcome for outcome in outcomes if outcome is not None]


class Session(Generic[W, C]):
    """What both clients' connections make of the sidecar's bytes, whatever drives them (the
    event loop, or the thread holding the read role): the lines, the request table, the
    notification and log queues, the progress callbacks of the calls in flight, the host's
    handlers being run, the routing of each line to them, and what ending the connection does.

    A client supplies what depends on how it runs: :attr:`lock` (held around the tables; a
    no-op on the event loop), the wake-up of each queue's readers (:attr:`Notifications.wake`
    under :attr:`Notifications.guard`), and the hooks below: writing a line (:meth:`_send`,
    :meth:`close_stdin`), running and stopping a handler (:meth:`_start`, :meth:`_stop`),
    running notification callbacks (:meth:`_callbacks`), waking the threads still waiting
    (:meth:`_wake_waiting`) and what becomes of a value a progress callback returns
    (:meth:`_spawn`)."""

    def __init__(self, options: "Options", settle: Settle[W], lock: Any = _NO_LOCK) -> None:
        self.lock = lock
        self._settle = settle
        self._max_request_bytes = options.max_request_bytes()
        self._next_id = 0
        #: The requests in flight: id → waiter.
        self.pending: Dict[int, W] = {}
        #: Set once: why the connection ended; every later request fails with (a copy of) it.
        self.error: Optional[SidecarError] = None
        #: The client is closing: the end of stdout is then the client's doing.
        self.closing = False
        self._lines = LineSplitter(options.max_line_bytes)
        self.notes: Notifications[C] = Notifications(options.notification_queue_size)
        # The log stream: a queue of its own, so that logs never crowd out other notifications.
        self.logs: Notifications[C] = Notifications(
            options.log_queue_size, "server log", "iterate logs() or raise log_queue_size"
        )
        #: Progress callbacks of the calls in flight that have one, by request id.
        self._progress: Dict[int, Callable[[ProgressParams], Any]] = {}
        self.handlers = options.handlers
        #: The sidecar's requests being handled, by id: what :meth:`_start` made of each.
        self._handling: Dict[Any, Any] = {}
        #: Requests begun and not yet ended, and when the last one ended (the blocking client
        #: reads stdout in the background only once it has been idle for a moment).
        self.in_flight = 0
        self.last_activity = _monotonic()
        #: A line of stdout ended the connection: what follows is read and dropped.
        self.discarding = False
        # Notifications with a meaning of their own for the client (besides their delivery).
        self._special: Dict[str, Callable[[JsonObject], None]] = {
            PROGRESS: self._on_progress,
            SERVER_LOG: self._on_log,
            CANCELLED: self._on_cancelled,
        }

    # A request's life in the clients' request(): begin, write, wait for the waiter, end.

    def begin(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        waiter: W,
        progress: Optional[Callable[[ProgressParams], Any]] = None,
        cancelled: bool = False,
    ) -> Tuple[int, bytes]:
        """Register ``waiter`` (and the request's progress callback) under a new id; returns the
        id and the line to write.

        Raises:
            SidecarError: the connection's error (naming ``method``) when it has ended;
                ``CANCELLED`` for a request its caller already ``cancelled`` (nothing sent);
                ``MESSAGE_TOO_LARGE`` for a request the sidecar would reject unread.
        """
        with self.lock:
            if self.error is not None:
                raise for_method(self.error, method)
            if cancelled:
                raise client_error(
                    ErrorCode.CANCELLED, f"{method} was cancelled before it was sent", method=method
                )
            self._next_id += 1
            request_id = self._next_id
            line = encode_request(request_id, method, params)
            if len(line) > self._max_request_bytes:
                raise client_error(
                    ErrorCode.MESSAGE_TOO_LARGE,
                    f"the {method} request is {len(line)} bytes, over the sidecar's "
                    f"--max-line-bytes {self._max_request_bytes}; not sent",
                    method=method,
                    setting="--max-line-bytes",
                    limit=self._max_request_bytes,
                    size=len(line),
                )
            self.pending[request_id] = waiter
            self.in_flight += 1
            if progress is not None:
                self._progress[request_id] = progress
        return request_id, line

    def end(self, request_id: int) -> None:
        """The caller is done with the request, whatever became of it: a late answer or
        progress of its id is dropped."""
        with self.lock:
            self.in_flight -= 1
            self.pending.pop(request_id, None)
            self._progress.pop(request_id, None)
            self.last_activity = _monotonic()

    def expire(self, request_id: int, method: str, timeout: Optional[float]) -> None:
        """The client's ``timeout`` ran out: settle the request with ``TIMEOUT`` and cancel it at
        the sidecar (nothing when it was answered meanwhile)."""
        with self.lock:
            waiter = self.pending.pop(request_id, None)
            if waiter is None:
                return
            self._settle(
                waiter,
                None,
                client_error(
                    ErrorCode.TIMEOUT,
                    f"no answer to {method} within {timeout:g} s; the request was cancelled",
                    method=method,
                    timeout=timeout,
                ),
            )
        self._send(cancel_line(request_id))

    def cancel(self, request_id: int) -> None:
        """Cancel a request still in flight at the sidecar; it stays pending: the sidecar
        answers it ``CANCELLED`` at once."""
        with self.lock:
            in_flight = request_id in self.pending
        if in_flight:
            self._send(cancel_line(request_id))

    def abandon(self, request_id: int) -> None:
        """The caller gave up waiting (its task was cancelled): forget the request, and cancel
        it at the sidecar if it was still in flight."""
        with self.lock:
            in_flight = self.pending.pop(request_id, None) is not None
        if in_flight:
            self._send(cancel_line(request_id))

    def feed(self, data: bytes) -> bool:
        """Dispatch every line that ``data`` (a chunk of stdout) completes; True if one was a
        notification. A line that is not a message (``INVALID_MESSAGE``), or one over the bound
        (``LINE_TOO_LARGE``, after the lines before it), ends the connection with that error
        (:meth:`fail`): the rest of stdout cannot be trusted, and is ignored from then on (a
        client still reads it to its end, so that the sidecar is never blocked on a full pipe
        before the EOF that ``fail`` gave it)."""
        if self.discarding:
            return False
        notified = False
        try:
            for line in self._lines.feed(data):
                if self.dispatch(line):
                    notified = True
            if self._lines.overflowed:
                raise line_too_large(self._lines.limit)
        except SidecarError as exc:
            self.discarding = True
            self.fail(exc)
        return notified

    def dispatch(self, line: bytes) -> bool:
        """Route one line of stdout; True if it was a notification.

        Raises:
            SidecarError: ``INVALID_MESSAGE`` (see :func:`classify`).
        """
        routed = classify(line)
        if isinstance(routed, Notification):
            special = self._special.get(routed.method)
            if special is not None:
                special(routed.params)
            self._deliver(routed)
            return True
        if type(routed) is tuple:  # a response: the hot path pays this one branch
            with self.lock:
                self._answer(*routed)
        elif isinstance(routed, SidecarRequest):
            self._on_request(routed)
        return False

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """Send a host → sidecar notification."""
        self._send(encode_notification(method, params))

    def _answer(self, request_id: int, message: Dict[str, Any]) -> None:
        """Settle the request a response answers (under :attr:`lock`); a late answer (the
        request timed out or was cancelled), or one to no request, is dropped."""
        waiter = self.pending.pop(request_id, None)
        if waiter is None:
            return
        error = message.get("error")
        if error is not None:
            self._settle(waiter, None, error_from_rpc(error))
        elif "result" in message:
            self._settle(waiter, message["result"], None)
        else:
            error = client_error(ErrorCode.INVALID_MESSAGE, f"response without result: {message!r}")
            self._settle(waiter, None, error)

    def _on_request(self, request: SidecarRequest) -> None:
        """Answer at once what needs no handler; start a handler (the reader never waits)."""
        line = self.handlers.immediate(request)
        if line is not None:
            self._send(line)
            return
        try:
            hash(request.id)
        except TypeError:  # not a JSON-RPC id: nothing could be answered
            return
        with self.lock:
            if request.id in self._handling or self.error is not None:
                return  # the sidecar never reuses an id in flight; a duplicate is ignored
            self._handling[request.id] = self._start(request, self.handlers.lookup(request.method))

    def _answered(self, request: SidecarRequest, line: bytes) -> None:
        """A handler is done: send its answer unless the request was withdrawn meanwhile (the
        sidecar cancelled it, or the connection ended)."""
        with self.lock:
            answer = self._handling.pop(request.id, None) is not None
        if answer:
            self._send(line)

    def _on_cancelled(self, params: JsonObject) -> None:
        request_id = params.get("requestId")
        if not isinstance(request_id, str):  # the sidecar's own ids are strings
            return
        with self.lock:
            entry = self._handling.pop(request_id, None)
        if entry is not None:
            self._stop(entry)

    def _on_progress(self, params: JsonObject) -> None:
        callback = self._progress.get(params.get("requestId"))  # type: ignore[arg-type]
        if callback is None:
            return  # the call ended (or never asked for progress): dropped
        outcome = _call(callback, params, "progress")
        if outcome is not None:
            self._spawn(outcome)

    def _on_log(self, params: JsonObject) -> None:
        if self.logs.queue is not None:
            self.logs.put(Notification(SERVER_LOG, params))

    def _deliver(self, notification: Notification) -> None:
        notes = self.notes
        if notes.callbacks:
            self._callbacks(notification)
        if notes.queue is not None:
            notes.put(notification)

    def fail(self, error: SidecarError) -> None:
        """End the connection: every pending and later request fails with ``error``, the
        handlers still running are stopped (nobody can be answered any more), stdin is closed
        and the queues' readers see the end."""
        with self.lock:
            self.fail_requests(error)
            self._wake_waiting()
            handling, self._handling = self._handling, {}
        for entry in handling.values():
            self._stop(entry)
        self.close_stdin()
        self.notes.end()
        self.logs.end()

    def fail_requests(self, error: SidecarError) -> None:
        """The request table's part of :meth:`fail` (under :attr:`lock`), alone for a client
        whose event loop is gone: every pending and later request fails with ``error``."""
        if self.error is None:
            self.error = error
        pending, self.pending = self.pending, {}
        for waiter in pending.values():
            self._settle(waiter, None, error.copy())

    def begin_close(self, waiter: W, running: bool) -> Optional[int]:
        """The close's first step: ``shutdown`` (if the sidecar still ``running``), then EOF right
        behind it (the same stop, protocol §2), so that a sidecar that never answers shutdown
        exits at the EOF instead of being killed at the deadline. Returns the id of the
        shutdown for :meth:`end`, None when none was sent."""
        self.closing = True
        request_id: Optional[int] = None
        if running and self.error is None:
            try:
                request_id, line = self.begin("shutdown", None, waiter)
                self._send(line)
            except SidecarError:
                pass
        self.close_stdin()
        return request_id

    def closed(self, shutdown: Optional[int]) -> None:
        """The close's last step, once the sidecar exited (or was killed) and its stdout was
        read: the shutdown request is over, and unless the connection ended otherwise first,
        every pending and later request fails with ``CONNECTION_CLOSED`` "the client was
        closed"."""
        if shutdown is not None:
            self.end(shutdown)
        self.closing = True
        self.fail(client_error(ErrorCode.CONNECTION_CLOSED, "the client was closed"))

    def output_ended(self, exit_code: Optional[int]) -> None:
        """Stdout's EOF: the connection ends with ``CONNECTION_CLOSED``, closed by the client or
        by the sidecar (with its exit code when known)."""
        if self.closing:
            message = "the client was closed"
        elif exit_code is None:
            message = "the sidecar closed its stdout"
        else:
            message = f"the sidecar exited (code {exit_code})"
        self.fail(client_error(ErrorCode.CONNECTION_CLOSED, message, exitCode=exit_code))

    # What each client supplies.

    def _send(self, line: Optional[bytes]) -> None:
        """Write ``line`` (None: nothing) unless stdin is closed."""
        raise NotImplementedError

    def close_stdin(self) -> None:
        raise NotImplementedError

    def _start(self, request: SidecarRequest, handler: Callable[..., Any]) -> Any:
        """Start running ``handler`` (under :attr:`lock`); returns what :meth:`_stop` takes. The
        handler's answer goes to :meth:`_answered`."""
        raise NotImplementedError

    def _stop(self, entry: Any) -> None:
        raise NotImplementedError

    def _callbacks(self, notification: Notification) -> None:
        raise NotImplementedError

    def _wake_waiting(self) -> None:
        """The connection ended (under :attr:`lock`): wake whoever waits for an answer."""

    def _spawn(self, outcome: Any) -> None:
        """A progress callback returned something: ignored unless the client runs awaitables."""


def _call(callback: Callable[[Any], Any], argument: Any, what: str) -> Any:
    """``callback(argument)``; an exception is logged (None is returned)."""
    try:
        return callback(argument)
    except Exception:
        _log.exception("mcp-sidecar %s callback %r failed", what, callback)
        return None


def classify(line: bytes) -> Union[Notification, Tuple[int, Dict[str, Any]], SidecarRequest, None]:
    """What one line of stdout is: a :class:`Notification`, ``(id, response)``, a
    :class:`SidecarRequest` (the sidecar asks the host, protocol §17), or None for anything to
    ignore (a blank line; an error not tied to a request is logged).

    Raises:
        SidecarError: ``INVALID_MESSAGE`` if the line is not a JSON-RPC message.
    """
    message = decode_line(line)
    if message is None:
        return None
    method = message.get("method")
    if method is not None:
        if not isinstance(method, str):
            return None
        params = message.get("params")
        if "id" in message:
            return SidecarRequest(message["id"], method, params if isinstance(params, dict) else {})
        if method == SERVERS_CHANGED and isinstance(params, dict):
            status = params.get("status")
            if isinstance(status, dict):
                params["status"] = ServerStatus(status)  # a typed result, as servers/list's
        return Notification(method, params if isinstance(params, dict) else {})
    request_id = message.get("id")
    if type(request_id) is not int:
        if "error" in message:
            _log.warning("mcp-sidecar error not tied to a request: %s", message["error"])
        return None
    return request_id, message


def for_method(error: SidecarError, method: str) -> SidecarError:
    """A copy of the connection's error, naming the method that could not be sent."""
    copy = error.copy()
    copy.method = method
    return copy


def line_too_large(max_line_bytes: int) -> SidecarError:
    """``LINE_TOO_LARGE``: the sidecar wrote a line over ``max_line_bytes``."""
    return client_error(
        ErrorCode.LINE_TOO_LARGE,
        f"the sidecar wrote a line longer than max_line_bytes={max_line_bytes}; "
        "the client closed the connection",
        setting="max_line_bytes",
        limit=max_line_bytes,
    )


def wrong_event_loop(owner: object, running: object) -> SidecarError:
    """``WRONG_EVENT_LOOP``: an ``AsyncSidecar`` awaited on another loop than its own."""
    where = "outside any event loop" if running is None else f"on another event loop ({running!r})"
    return client_error(
        ErrorCode.WRONG_EVENT_LOOP,
        f"this AsyncSidecar belongs to the event loop that started it ({owner!r}) and was used "
        f"{where}; nothing was sent. Start one client per loop, or use the blocking Sidecar "
        "across threads (close() works from any loop)",
    )


def spawn_failed(argv: Sequence[str], exc: OSError) -> SidecarError:
    """``SPAWN_FAILED``: the sidecar could not be started."""
    return client_error(
        ErrorCode.SPAWN_FAILED,
        f"cannot start the sidecar {argv[0]}: {exc}",
        binary=argv[0],
        errno=exc.errno,
    )


def kill_late(pid: Optional[int], kill: Callable[[], None]) -> None:
    """Kill a sidecar that did not exit in time (logged; one already gone is fine)."""
    _log.warning("mcp-sidecar (pid %s) did not exit in time: killing it", pid)
    try:
        kill()
    except ProcessLookupError:
        pass
