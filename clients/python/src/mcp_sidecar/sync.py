"""The blocking client: :class:`Sidecar` (threads welcome; no event loop involved).

Owns one sidecar process per client over blocking pipes; lines are cut by the same bounded
``LineSplitter`` as in ``aio`` (``max_line_bytes``, 64 MiB by default). Reading stdout is a role, not a thread:
a calling thread that waits for its response reads and dispatches lines itself whenever nobody
else is reading (so a sequential call costs one write and one read, no thread hand-off), and
hands the role to the next waiting thread when its own response has come. A background daemon
thread takes the role only when no call has been in flight for a moment, so notifications keep
flowing while the client is idle; it also runs the notification callbacks. The sidecar's requests
to the host (protocol §17) run their handlers on a small thread pool, never on the reader. Request
ids, the
pending table, timeouts, cancellation, notification queueing and the connection's end are the
protocol core's (:mod:`~mcp_sidecar._core`, shared with ``aio``), called under this module's
locks.
"""

from __future__ import annotations

import functools
import os
import select
import subprocess
import threading
import time
import weakref
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import IO, Any, Callable, Deque, Dict, Iterator, Mapping, Optional, Tuple, cast

from . import _log
from ._errors import SidecarError
from ._cancel import CancelToken
from ._handlers import SidecarRequest, answer_line, failure_line
from ._methods import SyncHandler, SyncNotificationCallback, SyncProgressCallback, _SidecarMethods
from ._results import install, shape
from ._stderr import StderrReader
from ._options import Options
from ._protocol import ServerLogParams, InitializeResult, Notification
from ._core import Notifications, Session, kill_late, spawn_failed

__all__ = [
    "Sidecar", "CancelToken", "SyncNotificationCallback", "SyncProgressCallback", "SyncHandler",
    "handler_cancel_token",
]


# Threads running the sidecar's requests at once (the sidecar itself keeps at most 256 waiting).
_HANDLER_THREADS = 32
_handler_context = threading.local()

# The background thread reads stdout only after this long without a call in flight.
_IDLE_GRACE_SECONDS = 0.05
_READ_CHUNK = 1 << 16
_KILL_WAIT_SECONDS = 5.0
_monotonic = time.monotonic


def handler_cancel_token() -> Optional[CancelToken]:
    """In a handler of the blocking client: the token that the sidecar's
    ``notifications/cancelled`` for the request being handled cancels (check ``cancelled``, or
    pass it as ``cancel=`` to calls the handler makes). None outside a handler. A thread cannot
    be stopped from outside: a cancelled handler runs on, and its answer is dropped."""
    return cast(Optional[CancelToken], getattr(_handler_context, "token", None))


class _Slot:
    """Where a response lands: ``result`` or ``error``, then ``done``."""

    __slots__ = ("result", "error", "done")

    def __init__(self) -> None:
        self.result: Any = None
        self.error: Optional[SidecarError] = None
        self.done = False


class _Connection(Session[_Slot, SyncNotificationCallback]):
    """One running sidecar (see the module doc): the protocol core's :class:`Session`, driven
    under this class's locks. Holds no reference to the public :class:`Sidecar`, whose finalizer
    closes stdin when it is collected without ``close()``."""

    def __init__(self, proc: "subprocess.Popen[bytes]", options: Options) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.proc = proc
        self._stdin = proc.stdin
        self._stdin_fd = proc.stdin.fileno()
        self._stdout_fd = proc.stdout.fileno()
        # The request table is touched only under _lock (its settle runs under it too).
        self._lock = threading.Lock()
        super().__init__(options, self._settle, self._lock)
        # Threads waiting while another one reads, each on its own locked Lock: released when its
        # response lands or when it is handed the read role (never a broadcast to all).
        self._sleepers: Dict[_Slot, threading.Lock] = {}
        self._write_lock = threading.Lock()
        self._reading = False  # someone holds the read role
        self._close_lock = threading.Lock()
        self._closed = False
        self._drainer: Optional[threading.Thread] = None  # reads stdout after a fatal line
        # Notifications: the core's queues, each under a condition of its own, and callbacks
        # (run by the background thread, from the backlog under _bg_cv).
        for queue in (self.notes, self.logs):
            queue.guard = condition = threading.Condition(threading.Lock())
            queue.wake = condition.notify_all
        backlog = max(options.notification_queue_size, 1024)
        self._backlog: Deque[Notification] = deque(maxlen=backlog)
        self._bg_cv = threading.Condition(threading.Lock())
        self._bg_stop = False
        # The sidecar's requests: run on a thread pool (made on first use).
        self._pool: Optional[ThreadPoolExecutor] = None
        self._bg = threading.Thread(target=self._background, name="mcp-sidecar-reader", daemon=True)
        self._bg.start()
        self._stderr_thread: Optional[threading.Thread] = None
        stderr = options.stderr_reader()
        if stderr is not None and proc.stderr is not None:
            self._stderr_thread = threading.Thread(
                target=_read_to_end,
                args=(proc.stderr.fileno(), stderr),
                name="mcp-sidecar-stderr",
                daemon=True,
            )
            self._stderr_thread.start()

    # -- requests ---------------------------------------------------------------------------

    def request(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        timeout: Optional[float] = None,
        cancel: Optional[CancelToken] = None,
        progress: Optional[SyncProgressCallback] = None,
    ) -> Any:
        """Send one request and return its ``result``; raises :class:`SidecarError`.
        ``progress`` receives the request's ``notifications/progress`` until it ends."""
        deadline = None if timeout is None else _monotonic() + timeout
        slot = _Slot()
        cancelled = cancel is not None and cancel.cancelled
        request_id, line = self.begin(method, params, slot, progress, cancelled)
        hook: Optional[Callable[[], None]] = None
        try:
            self._send(line)
            if cancel is not None:
                hook = functools.partial(self.cancel, request_id)
                if not cancel._bind(hook):
                    self.cancel(request_id)
                cancel._sent.set()
            self._wait(slot, deadline)
            if not slot.done:  # the deadline passed
                self.expire(request_id, method, timeout)
            if slot.error is not None:
                error = slot.error
                if error.method is None:
                    error.method = method
                raise error
            return slot.result
        finally:
            self.end(request_id)
            if hook is not None and cancel is not None:
                cancel._unbind(hook)

    def _send(self, data: Optional[bytes]) -> None:
        """Write unless stdin was closed: a line may be sent past the connection's end (a
        handler's answer, a caller racing close()), when the descriptor number could already
        belong to another file."""
        with self._write_lock:
            if data is None or self._stdin.closed:
                return
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._stdin_fd, view) :]
            except OSError:
                pass  # the sidecar is gone: reading reports it (EOF) to every pending request

    def _settle(self, slot: _Slot, result: Any, error: Optional[SidecarError]) -> None:
        """The core's settle (called under ``_lock``): fill the slot, wake its thread."""
        slot.result, slot.error, slot.done = result, error, True
        waiter = self._sleepers.pop(slot, None)
        if waiter is not None:
            waiter.release()

    def _wait(self, slot: _Slot, deadline: Optional[float]) -> None:
        """Return once ``slot`` is done or ``deadline`` passed, reading stdout meanwhile when
        nobody else is."""
        lock = self._lock
        waiter: Optional[threading.Lock]
        while True:
            with lock:
                if slot.done:
                    return
                error = self.error
                if error is not None:
                    slot.error = error.copy()
                    slot.done = True
                    return
                if self._reading:
                    waiter = threading.Lock()
                    waiter.acquire()
                    self._sleepers[slot] = waiter
                else:
                    self._reading = True
                    waiter = None
            if waiter is not None:  # someone else reads: sleep until woken or the deadline
                if deadline is None:
                    waiter.acquire()
                    continue
                remaining = deadline - _monotonic()
                if remaining > 0 and waiter.acquire(timeout=remaining):
                    continue
                with lock:
                    self._sleepers.pop(slot, None)
                    if slot.done:
                        return
                if _monotonic() >= deadline:
                    return
                continue
            try:
                self._read_until(slot, deadline)
            finally:
                self._release_read_role()
            if slot.done or (deadline is not None and _monotonic() >= deadline):
                return

    def _release_read_role(self) -> None:
        """Give up reading, and hand the role to one sleeping thread, if any."""
        with self._lock:
            self._reading = False
            if self._sleepers:
                slot = next(iter(self._sleepers))
                self._sleepers.pop(slot).release()

    # -- reading (holder of the read role only) ---------------------------------------------

    def _read_until(self, slot: Optional[_Slot], deadline: Optional[float]) -> None:
        """Read and dispatch lines until ``slot`` is done, the deadline passes, or (no slot:
        the background thread) a call is in flight or a notification was read."""
        try:
            while slot is None or not slot.done:
                chunk = self._read_chunk(deadline)
                if chunk is None:
                    return
                notified = self.feed(chunk)
                if self.discarding:  # the rest of stdout is read and dropped on a thread
                    self._drainer = threading.Thread(
                        target=_read_to_end, args=(self._stdout_fd,), name="mcp-sidecar-drain",
                        daemon=True,
                    )
                    self._drainer.start()
                    return
                if slot is None and (notified or self.in_flight):
                    return
        except EOFError:
            self._on_eof()

    def _read_chunk(self, deadline: Optional[float]) -> Optional[bytes]:
        """The next chunk of stdout; None if the deadline passed first.

        Raises:
            EOFError: the sidecar closed its stdout.
        """
        if deadline is not None:
            remaining = deadline - _monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([self._stdout_fd], [], [], remaining)
            if not readable:
                return None
        chunk = os.read(self._stdout_fd, _READ_CHUNK)
        if not chunk:
            raise EOFError
        return chunk

    # -- the sidecar's requests (protocol §17) ----------------------------------------------

    def _start(
        self, request: SidecarRequest, handler: SyncHandler
    ) -> Tuple[CancelToken, "Future[None]"]:
        """Hand a handler to the pool (under ``_lock``)."""
        token = CancelToken()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(_HANDLER_THREADS, "mcp-sidecar-handler")
        return token, self._pool.submit(self._handle, request, handler, token)

    def _handle(self, request: SidecarRequest, handler: SyncHandler, token: CancelToken) -> None:
        _handler_context.token = token
        try:
            line = answer_line(request, handler(request.params))
        except Exception as exc:
            line = failure_line(request, exc)
        finally:
            _handler_context.token = None
        self._answered(request, line)

    def _stop(self, entry: Tuple[CancelToken, "Future[None]"]) -> None:
        entry[1].cancel()  # not started yet: never runs
        entry[0].cancel()

    def _on_eof(self) -> None:
        code = self.proc.poll()
        if code is None:
            try:
                code = self.proc.wait(2.0)
            except subprocess.TimeoutExpired:
                code = None
        self.output_ended(code)

    # -- notifications ----------------------------------------------------------------------

    def add_callback(self, callback: SyncNotificationCallback) -> Callable[[], None]:
        with self._bg_cv:
            unregister = self.notes.add_callback(callback)

        def remove() -> None:
            with self._bg_cv:
                unregister()

        return remove

    def _callbacks(self, notification: Notification) -> None:
        with self._bg_cv:
            self._backlog.append(notification)
            self._bg_cv.notify()

    def _background(self) -> None:
        """Run callbacks; read stdout while no call is in flight (so notifications flow)."""
        bg_cv = self._bg_cv
        while True:
            with bg_cv:
                while not self._backlog and not self._bg_stop and not self._idle():
                    bg_cv.wait(_IDLE_GRACE_SECONDS)
                batch = list(self._backlog)
                self._backlog.clear()
                callbacks = self.notes.callbacks
                stop = self._bg_stop
            for notification in batch:
                self.notes.run_callbacks(notification, callbacks)
            if stop or self.error is not None:
                return
            if self._take_read_role(idle=True):
                try:
                    self._read_until(None, None)
                finally:
                    self._release_read_role()

    def _idle(self) -> bool:
        return (
            not self._reading
            and self.in_flight == 0
            and self.error is None
            and _monotonic() - self.last_activity >= _IDLE_GRACE_SECONDS
        )

    def _take_read_role(self, idle: bool = False) -> bool:
        """Take the read role if nobody holds it (and, if ``idle``, no call was in flight for a
        moment)."""
        with self._lock:
            free = self._idle() if idle else not self._reading
            if free:
                self._reading = True
            return free

    # -- ending -----------------------------------------------------------------------------

    def _wake_waiting(self) -> None:
        """Threads still asleep (their slot is settled, or they see the error) wake up."""
        sleepers, self._sleepers = self._sleepers, {}
        for waiter in sleepers.values():
            waiter.release()

    def fail(self, error: SidecarError) -> None:
        super().fail(error)
        with self._bg_cv:
            self._bg_cv.notify_all()

    def close_stdin(self) -> None:
        with self._write_lock:
            try:
                self._stdin.close()
            except OSError:
                pass

    def close(self, timeout: float) -> None:
        with self._close_lock:
            if self._closed:
                return
            deadline = _monotonic() + timeout
            slot = _Slot()
            shutdown = self.begin_close(slot, self.proc.poll() is None)
            if shutdown is not None:  # reads (dispatching notifications) until the answer or EOF
                self._wait(slot, deadline)
            try:
                self.proc.wait(max(deadline - _monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                kill_late(self.proc.pid, self.proc.kill)
                try:
                    self.proc.wait(_KILL_WAIT_SECONDS)
                except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL ignored?
                    _log.error("mcp-sidecar (pid %d) survived SIGKILL", self.proc.pid)
            # Drain what is left (the shutdown answer came; EOF follows the exit).
            if self.error is None and self._take_read_role():
                try:
                    self._read_until(_Slot(), _monotonic() + 2.0)
                finally:
                    self._release_read_role()
            self.closed(shutdown)
            with self._bg_cv:
                self._bg_stop = True
                self._bg_cv.notify_all()
            if threading.current_thread() is not self._bg:
                self._bg.join(2.0)
            if self._stderr_thread is not None:
                self._stderr_thread.join(2.0)
                if not self._stderr_thread.is_alive() and self.proc.stderr is not None:
                    self.proc.stderr.close()
            drainer = self._drainer
            if drainer is not None:
                drainer.join(2.0)  # stdout's EOF follows the exit
            drained = drainer is None or not drainer.is_alive()
            if not self._bg.is_alive() and drained and self.proc.stdout is not None:
                self.proc.stdout.close()
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
            self._closed = True


def _iterate(notes: Notifications[Any], timeout: Optional[float]) -> Iterator[Notification]:
    """The items of a bounded queue as they come, until the connection ends and it is empty, or
    nothing came within ``timeout`` seconds."""
    queue = notes.require_queue()
    cv: threading.Condition = notes.guard
    while True:
        with cv:
            deadline = None if timeout is None else _monotonic() + timeout
            while not queue:
                if notes.ended:
                    return
                if deadline is None:
                    cv.wait()
                else:
                    remaining = deadline - _monotonic()
                    if remaining <= 0:
                        return
                    cv.wait(remaining)
            item = queue.popleft()
        yield item


def _read_to_end(fd: int, reader: Optional[StderrReader] = None) -> None:
    """Read ``fd`` to its end, into ``reader`` (None: dropping what comes)."""
    try:
        while True:
            chunk = os.read(fd, _READ_CHUNK)
            if not chunk:
                return
            if reader is not None:
                reader.feed(chunk)
    except (OSError, ValueError):
        return


def _close_stdin_at_gc(stdin: IO[bytes]) -> None:
    """Finalizer of a :class:`Sidecar` dropped without ``close()``: close the sidecar's stdin so
    that it stops its servers and exits (EOF is a shutdown, protocol §2)."""
    try:
        stdin.close()
    except OSError:
        pass


class Sidecar:
    # The docstring and __init__ (every option, then _open) are generated with the methods: see
    # _results.install.

    def _open(self, arguments: Dict[str, Any]) -> None:
        options = Options(arguments)
        self._close_timeout: float = arguments["close_timeout"]
        self._handlers = options.handlers
        argv = options.argv()
        try:
            proc = subprocess.Popen(argv, bufsize=0, **options.popen_kwargs())
        except OSError as exc:
            raise spawn_failed(argv, exc) from exc
        conn = _Connection(proc, options)
        self._conn = conn
        assert proc.stdin is not None
        self._finalizer = weakref.finalize(self, _close_stdin_at_gc, proc.stdin)
        try:
            result = conn.request(
                "initialize", options.initialize_params(), options.start_timeout
            )
        except BaseException:
            conn.close(1.0)
            self._finalizer.detach()
            raise
        self._initialize_result = shape(InitializeResult, result)

    # -- lifecycle --------------------------------------------------------------------------

    def close(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (the sidecar stops every server), wait for the process to exit, and
        kill it if it has not within ``timeout`` seconds (default ``close_timeout``). Requests
        still pending fail with ``CONNECTION_CLOSED``. Idempotent."""
        self._conn.close(self._close_timeout if timeout is None else timeout)
        self._finalizer.detach()

    def __enter__(self) -> Sidecar:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- state ------------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The sidecar's process id."""
        return self._conn.proc.pid

    @property
    def returncode(self) -> Optional[int]:
        """The sidecar's exit status once it has exited, else None."""
        return self._conn.proc.poll()

    def notifications(self, timeout: Optional[float] = None) -> Iterator[Notification]:
        """Notifications received since start, oldest first, from a bounded queue
        (``notification_queue_size``; when full the oldest is dropped). The iteration ends when
        the client closes, or when no notification arrived within ``timeout`` seconds."""
        return _iterate(self._conn.notes, timeout)

    def logs(self, timeout: Optional[float] = None) -> Iterator[ServerLogParams]:
        """The servers' log messages (``notifications/server/log`` params: ``server``,
        ``level``, ``logger?``, ``data``) received since start, oldest first. Bounded: when
        ``log_queue_size`` messages wait unread, the oldest is dropped and counted in
        :attr:`dropped_logs`, so a host that does not read never grows memory. Messages come
        only at or above the level set by ``server_logs`` or :meth:`set_log_level`. They are
        also delivered as notifications. The iteration ends when the client closes, or when no
        message arrived within ``timeout`` seconds."""
        return (cast(ServerLogParams, note.params) for note in _iterate(self._conn.logs, timeout))


install(Sidecar, _SidecarMethods)
