"""The asyncio client: :class:`AsyncSidecar`.

Owns one sidecar process per client: spawning it, the ``initialize`` handshake, reading its
stdout, matching responses to requests by id (any number in flight, from any number of tasks),
timeouts and asyncio cancellation (both send ``notifications/cancelled``), notification delivery
(callbacks and a bounded queue behind an async iterator), and closing (``shutdown``, wait, kill).

Ids, the pending table, timeouts, cancellation, notification queueing and the connection's end
are the protocol core's (:mod:`~mcp_sidecar._core`, shared with ``sync``); this module drives it
from the event loop.

Reading: the connection is the process's ``asyncio.SubprocessProtocol``. The event loop hands it
every chunk of stdout as soon as it is readable (reading is never paused, so the sidecar is never
blocked on a full pipe), a :class:`~mcp_sidecar._lines.LineSplitter` bounded by
``max_line_bytes`` (64 MiB by default) cuts the lines, and each line is dispatched at once: a
response resolves its request's future, a notification goes to the callbacks and the queue. A
line over the bound closes the client with ``LINE_TOO_LARGE``. Dispatching in the protocol
callback rather than in a reader task saves one task switch per response (measured: about 10% of
a call's round trip).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import signal
import weakref
from typing import Any, AsyncIterator, Callable, Dict, List, Mapping, Optional, Set, Union, cast

from . import _log
from ._binary import PathArg
from ._errors import ErrorCode, SidecarError, client_error
from ._handlers import SidecarRequest, answer_line, failure_line
from ._methods import Handler, NotificationCallback, ProgressCallback, _AsyncSidecarMethods
from ._results import install, shape
from ._options import Options
from ._protocol import ServerLogParams, InitializeResult, Notification
from ._core import Notifications, Session, kill_late, spawn_failed, wrong_event_loop

__all__ = ["AsyncSidecar", "NotificationCallback", "ProgressCallback", "Handler"]

_KILL_WAIT_SECONDS = 5.0
# After stdout's EOF, how long to wait for the exit status (and after the exit, for EOF: a
# grandchild could hold the pipe) before reporting the connection closed anyway.
_EXIT_GRACE_SECONDS = 2.0


def _settle_future(
    future: "asyncio.Future[Any]", result: Any, error: Optional[SidecarError]
) -> None:
    """The core's settle: resolve a request's future (one whose task was cancelled is done)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class _Connection(Session["asyncio.Future[Any]", NotificationCallback], asyncio.SubprocessProtocol):
    """One running sidecar, as the protocol of its process: the pipes, driving the protocol core
    (:mod:`~mcp_sidecar._core`) from the event loop.

    Holds no reference to the public :class:`AsyncSidecar`, so that object can be garbage
    collected (its finalizer then closes the sidecar's stdin) while this keeps running.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, options: Options) -> None:
        #: The event loop the connection lives on.
        self.loop = loop
        self.transport: Optional[asyncio.SubprocessTransport] = None
        self.stdin: Optional[asyncio.WriteTransport] = None
        super().__init__(options, _settle_future)
        self._write_paused = False
        self._drain_waiters: List[asyncio.Future[None]] = []
        self._callback_tasks: Set[asyncio.Future[Any]] = set()  # what callbacks returned, running
        # Wake-ups of the iterators waiting on the core's notification and log queues.
        self.notes_event = asyncio.Event()
        self.logs_event = asyncio.Event()
        self.notes.wake = self.notes_event.set
        self.logs.wake = self.logs_event.set
        # Stderr to logging.
        self._stderr = options.stderr_reader()
        # Ending.
        self.exited: asyncio.Future[Optional[int]] = loop.create_future()
        self._stdout_eof = False
        self._finish_timer: Optional[asyncio.TimerHandle] = None
        self.finished: asyncio.Future[None] = loop.create_future()  # EOF seen and exit known
        self._close_done: Optional[asyncio.Future[None]] = None

    # -- protocol callbacks -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.SubprocessTransport, transport)
        self.stdin = cast(asyncio.WriteTransport, self.transport.get_pipe_transport(0))

    def pipe_data_received(self, fd: int, data: Union[bytes, str]) -> None:
        assert isinstance(data, bytes)
        if fd == 1:
            self.feed(data)
        elif fd == 2 and self._stderr is not None:
            self._stderr.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Optional[Exception]) -> None:
        if fd == 1:
            self._stdout_eof = True
            self._maybe_finish()
        elif fd == 0:
            self._wake_drain_waiters()

    def process_exited(self) -> None:
        if not self.exited.done():
            assert self.transport is not None
            self.exited.set_result(self.transport.get_returncode())
        self._maybe_finish()

    def pause_writing(self) -> None:
        self._write_paused = True

    def resume_writing(self) -> None:
        self._write_paused = False
        self._wake_drain_waiters()

    def _wake_drain_waiters(self) -> None:
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    # -- requests ---------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        timeout: Optional[float] = None,
        progress: Optional[ProgressCallback] = None,
    ) -> Any:
        """Send one request and return its ``result``; raises :class:`SidecarError`.
        ``progress`` receives the request's ``notifications/progress`` until it ends."""
        future: asyncio.Future[Any] = self.loop.create_future()
        request_id, line = self.begin(method, params, future, progress)
        timer: Optional[asyncio.TimerHandle] = None
        try:
            self._send(line)
            if self._write_paused:  # backpressure: the sidecar is not reading fast enough
                waiter: asyncio.Future[None] = self.loop.create_future()
                self._drain_waiters.append(waiter)
                await waiter
            if timeout is not None:
                timer = self.loop.call_later(timeout, self.expire, request_id, method, timeout)
            return await future
        except asyncio.CancelledError:
            # The awaiting task was cancelled: forget the request and cancel it at the sidecar.
            self.abandon(request_id)
            raise
        except SidecarError as exc:
            if exc.method is None:
                exc.method = method
            raise
        finally:
            if timer is not None:
                timer.cancel()
            self.end(request_id)

    def _send(self, line: Optional[bytes]) -> None:
        stdin = self.stdin
        if line is not None and stdin is not None and not stdin.is_closing():
            stdin.write(line)

    # -- the sidecar's requests (protocol §17) ----------------------------------------------

    def _start(self, request: SidecarRequest, handler: Handler) -> "asyncio.Task[None]":
        """Run a handler as a task of its own (any number run at once)."""
        return self.loop.create_task(self._handle(request, handler))

    async def _handle(self, request: SidecarRequest, handler: Handler) -> None:
        try:
            outcome = handler(request.params)
            if inspect.isawaitable(outcome):
                outcome = await outcome
            line = answer_line(request, outcome)
        except asyncio.CancelledError:
            # Cancelled by the sidecar's notifications/cancelled (already out of the table) or
            # by the client's end: the request is over, nothing is answered. A handler that
            # raised CancelledError on its own is a failure like any other.
            if self._handling.pop(request.id, None) is None or self.error is not None:
                return
            line = failure_line(request, RuntimeError(f"the {request.method} handler was cancelled"))
        except Exception as exc:
            line = failure_line(request, exc)
        self._answered(request, line)

    def _stop(self, task: "asyncio.Task[None]") -> None:
        task.cancel()

    def _spawn(self, outcome: Any) -> None:
        if hasattr(outcome, "__await__"):  # a callback returned an awaitable: run as a task
            self._track(asyncio.ensure_future(outcome))

    def _maybe_finish(self) -> None:
        """Report the end once stdout's EOF and the exit status are both known (or after a
        grace period when only one of them comes)."""
        if self.finished.done():
            return
        if self._stdout_eof and self.exited.done():
            self._finish(self.exited.result())
        elif self._finish_timer is None and (self._stdout_eof or self.exited.done()):
            self._finish_timer = self.loop.call_later(
                _EXIT_GRACE_SECONDS, self._finish, None
            )

    def _finish(self, code: Optional[int]) -> None:
        if self.finished.done():
            return
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        if code is None and self.exited.done():
            code = self.exited.result()
        self.output_ended(code)
        self.finished.set_result(None)
        if self.exited.done() and self.transport is not None:
            self.transport.close()  # every pipe is done and the process reaped

    # -- notifications ----------------------------------------------------------------------

    def add_callback(self, callback: NotificationCallback) -> Callable[[], None]:
        return self.notes.add_callback(callback)

    def _callbacks(self, notification: Notification) -> None:
        for outcome in self.notes.run_callbacks(notification, self.notes.callbacks):
            self._spawn(outcome)

    def _track(self, task: asyncio.Future[Any]) -> None:
        self._callback_tasks.add(task)
        task.add_done_callback(self._callback_done)

    def _callback_done(self, task: asyncio.Future[Any]) -> None:
        self._callback_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("mcp-sidecar notification callback failed", exc_info=task.exception())

    # -- ending -----------------------------------------------------------------------------

    def _wake_waiting(self) -> None:
        self._wake_drain_waiters()

    def close_stdin(self) -> None:
        if self.stdin is not None and not self.stdin.is_closing():
            self.stdin.close()

    async def close(self, timeout: float) -> None:
        if self._close_done is not None:
            await asyncio.shield(self._close_done)
            return
        self._close_done = self.loop.create_future()
        try:
            await self._close(timeout)
        finally:
            self._close_done.set_result(None)

    async def _close(self, timeout: float) -> None:
        deadline = self.loop.time() + timeout
        # The shutdown's answer is not awaited: the exit and the end of stdout below follow it.
        answer: asyncio.Future[Any] = self.loop.create_future()
        answer.add_done_callback(_retrieve)
        shutdown = self.begin_close(answer, not self.exited.done())
        try:
            await asyncio.wait_for(
                asyncio.shield(self.exited), max(deadline - self.loop.time(), 0.1)
            )
        except asyncio.TimeoutError:
            assert self.transport is not None
            kill_late(self.transport.get_pid(), self.transport.kill)
            try:
                await asyncio.wait_for(asyncio.shield(self.exited), _KILL_WAIT_SECONDS)
            except asyncio.TimeoutError:  # pragma: no cover - SIGKILL ignored?
                _log.error("mcp-sidecar (pid %s) survived SIGKILL", self.transport.get_pid())
        try:  # stdout's EOF follows the exit (bounded by the finish timer)
            await asyncio.wait_for(asyncio.shield(self.finished), _EXIT_GRACE_SECONDS + 1.0)
        except asyncio.TimeoutError:  # pragma: no cover
            pass
        self._finish(None)
        self.closed(shutdown)
        if self.transport is not None:
            self.transport.close()

    async def end_without_loop(self, timeout: float) -> None:
        """End a sidecar whose event loop is closed or stopped, from the running loop (another
        one): close its stdin pipe (EOF: it stops every server and exits), wait for the exit,
        kill it after ``timeout``, and reap it (the closed loop's child watcher may never)."""
        self.closing = True
        transport = self.transport
        if transport is not None:
            # The pipes themselves, stdin first (the EOF): their transports would need the loop.
            for fd in (0, 1, 2):
                pipe_transport = transport.get_pipe_transport(fd)
                pipe = None if pipe_transport is None else pipe_transport.get_extra_info("pipe")
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:
                        pass
            pid = transport.get_pid()
            if not await _reap(pid, timeout):
                kill_late(pid, functools.partial(os.kill, pid, signal.SIGKILL))
                if not await _reap(pid, _KILL_WAIT_SECONDS):  # pragma: no cover - SIGKILL ignored?
                    _log.error("mcp-sidecar (pid %s) survived SIGKILL", pid)
            try:  # marks the transport closed (no warning when it is collected)
                transport.close()
            except RuntimeError:  # its loop is closed: what it schedules there cannot run
                pass
        if self.error is None:
            self.fail_requests(client_error(ErrorCode.CONNECTION_CLOSED, "the client was closed"))


async def _reap(pid: int, timeout: float) -> bool:
    """Wait (on the running loop) until process ``pid`` has exited, at most ``timeout`` seconds,
    and reap it unless its watcher already did; False if it is still running."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # already exited and reaped
    except (AttributeError, OSError):  # no pidfd (not Linux): a blocking wait on a thread
        waiting = asyncio.get_running_loop().run_in_executor(None, _waitpid_quietly, pid, 0)
        try:
            await asyncio.wait_for(waiting, timeout)
        except asyncio.TimeoutError:  # that thread ends with the process (killed next)
            return False
        return True
    loop = asyncio.get_running_loop()
    readable: asyncio.Future[None] = loop.create_future()
    loop.add_reader(pidfd, _resolve, readable)
    try:
        await asyncio.wait_for(readable, timeout)  # a pidfd is readable once its process exited
    except asyncio.TimeoutError:
        return False
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)
    _waitpid_quietly(pid, os.WNOHANG)
    return True


def _resolve(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


def _retrieve(future: "asyncio.Future[Any]") -> None:
    """Mark a future's outcome as seen (an answer nobody awaits logs no error)."""
    if not future.cancelled():
        future.exception()


def _waitpid_quietly(pid: int, options: int) -> None:
    try:
        os.waitpid(pid, options)
    except ChildProcessError:  # reaped by its child watcher meanwhile
        pass


async def _iterate(notes: Notifications[Any], event: asyncio.Event) -> AsyncIterator[Notification]:
    """The items of a bounded queue as they come, until the connection ends and it is empty."""
    queue = notes.require_queue()
    while True:
        while not queue:
            if notes.ended:
                return
            event.clear()
            await event.wait()
        yield queue.popleft()


async def _log_params(notes: AsyncIterator[Notification]) -> AsyncIterator[ServerLogParams]:
    async for note in notes:
        yield cast(ServerLogParams, note.params)


def _close_stdin_at_gc(loop: asyncio.AbstractEventLoop, transport: asyncio.BaseTransport) -> None:
    """Finalizer of an :class:`AsyncSidecar` dropped without ``close()``: close the sidecar's
    stdin so that it stops its servers and exits (EOF is a shutdown, protocol §2)."""
    if transport.is_closing():
        return
    try:
        if loop.is_running():
            loop.call_soon_threadsafe(transport.close)
            return
    except RuntimeError:  # the loop is closed
        pass
    pipe = transport.get_extra_info("pipe")
    if pipe is not None:
        try:
            pipe.close()
        except OSError:
            pass


class AsyncSidecar:
    # The docstring and __init__ (every option, then _open) are generated with the methods: see
    # _results.install.

    def _open(self, arguments: Dict[str, Any]) -> None:
        self._options = Options(arguments)
        self._handlers = self._options.handlers
        self._close_timeout: float = arguments["close_timeout"]
        self._conn: Optional[_Connection] = None
        self._initialize_result: Optional[InitializeResult] = None
        self._finalizer: Optional[
            weakref.finalize[[asyncio.AbstractEventLoop, asyncio.BaseTransport], AsyncSidecar]
        ] = None

    # -- lifecycle --------------------------------------------------------------------------

    @classmethod
    async def open(cls, binary: Optional[PathArg] = None, **options: Any) -> AsyncSidecar:
        """Create a client and :meth:`start` it (same arguments as the constructor)."""
        return await cls(binary, **options).start()

    async def start(self) -> AsyncSidecar:
        """Spawn the sidecar and perform ``initialize``. Returns ``self``."""
        if self._conn is not None:
            raise RuntimeError("this AsyncSidecar was already started")
        options = self._options
        argv = options.argv()
        loop = asyncio.get_running_loop()
        conn = _Connection(loop, options)
        try:
            await loop.subprocess_exec(lambda: conn, *argv, **options.popen_kwargs())
        except OSError as exc:
            raise spawn_failed(argv, exc) from exc
        assert conn.stdin is not None
        self._conn = conn
        self._finalizer = weakref.finalize(self, _close_stdin_at_gc, loop, conn.stdin)
        try:
            result = await conn.request(
                "initialize", options.initialize_params(), timeout=options.start_timeout
            )
        except BaseException:
            await conn.close(1.0)
            raise
        self._initialize_result = shape(InitializeResult, result)
        return self

    async def close(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (the sidecar stops every server) and close its stdin right behind it
        (EOF is the same stop, so a sidecar that never answers still exits by itself), wait for
        the process to exit, and kill it if it has not within ``timeout`` seconds (default
        ``close_timeout``). Requests still pending fail with ``CONNECTION_CLOSED``. Idempotent.

        The one method that may be awaited on another event loop than the client's: it closes
        the client on its own loop when that loop runs in another thread, and when that loop is
        closed or stopped it ends the sidecar directly (stdin closed, exit awaited, killed after
        ``timeout``, reaped)."""
        conn = self._conn
        if conn is None:
            return
        timeout = self._close_timeout if timeout is None else timeout
        owner = conn.loop
        if asyncio.get_running_loop() is owner:
            await conn.close(timeout)
        elif owner.is_running() and not owner.is_closed():
            # The loop that owns the client runs in another thread: close it there.
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(conn.close(timeout), owner))
        else:
            await conn.end_without_loop(timeout)
        if self._finalizer is not None:
            self._finalizer.detach()

    async def __aenter__(self) -> AsyncSidecar:
        if self._conn is None:
            await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    # -- state ------------------------------------------------------------------------------

    def _require(self) -> _Connection:
        conn = self._conn
        if conn is None:
            raise client_error(
                ErrorCode.CONNECTION_CLOSED,
                "the client is not started (use `async with` or `await start()`)",
            )
        return conn

    def _here(self) -> _Connection:
        """The connection, for a request made on the event loop that started the client."""
        conn = self._require()
        try:
            running: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not conn.loop:
            raise wrong_event_loop(conn.loop, running)
        return conn

    @property
    def pid(self) -> Optional[int]:
        """The sidecar's process id (None before start)."""
        if self._conn is None or self._conn.transport is None:
            return None
        return self._conn.transport.get_pid()

    @property
    def returncode(self) -> Optional[int]:
        """The sidecar's exit status once it has exited, else None."""
        if self._conn is None or self._conn.transport is None:
            return None
        return self._conn.transport.get_returncode()

    # -- the sidecar's requests (protocol §17) ------------------------------------------------

    def on_request(self, method: str, handler: Handler) -> None:
        """Handle the sidecar's ``method`` requests with ``handler`` (see :data:`Handler`);
        before :meth:`start` only, since ``initialize`` declares what is handled. A handler runs
        as a task of its own (many at once); the sidecar's ``notifications/cancelled`` for its
        request cancels that task, and nothing is answered."""
        if self._conn is not None:
            raise RuntimeError("handlers are registered before start (initialize declares them)")
        self._options.handlers.register(method, handler)

    def notifications(self) -> AsyncIterator[Notification]:
        """Notifications received since start, oldest first, from a bounded queue
        (``notification_queue_size``; when full the oldest is dropped). The iteration ends when
        the client closes. Use one iterator at a time (several would share the items)."""
        conn = self._require()
        return _iterate(conn.notes, conn.notes_event)

    def logs(self) -> AsyncIterator[ServerLogParams]:
        """The servers' log messages (``notifications/server/log`` params: ``server``,
        ``level``, ``logger?``, ``data``) received since start, oldest first. Bounded: when
        ``log_queue_size`` messages wait unread, the oldest is dropped and counted in
        :attr:`dropped_logs`, so a host that does not read never grows memory. Messages come
        only at or above the level set by ``server_logs`` or :meth:`set_log_level`. They are
        also delivered as notifications. The iteration ends when the client closes."""
        conn = self._require()
        return _log_params(_iterate(conn.logs, conn.logs_event))


install(AsyncSidecar, _AsyncSidecarMethods)
