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
import os
import subprocess
import weakref
from typing import (
    Any,
    AsyncIterator,
    Awaitable,
    Callable,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Union,
    cast,
)

from . import _log
from ._binary import PathArg
from ._errors import ErrorCode, SidecarError, client_error
from ._lines import LineSplitter
from ._options import (
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_NOTIFICATION_QUEUE_SIZE,
    Options,
    StderrTarget,
    fspath_or_none,
)
from ._protocol import (
    ClientInfo,
    ConfigDialect,
    InitializeResult,
    Notification,
    ResultsReadResult,
    ServersListResult,
    ServersLoadResult,
    ServersTestResult,
    ServerStatus,
    ToolCallResult,
    ToolFormat,
    ToolsListResult,
)
from ._core import Notifications, Requests, classify, kill_late, line_too_large, spawn_failed
from ._wire import (
    add_server_params,
    call_tool_params,
    list_tools_params,
    load_servers_params,
    read_result_params,
    test_server_params,
)

__all__ = ["AsyncSidecar", "NotificationCallback"]

#: A notification callback: a plain function, or one returning an awaitable (run as a task).
NotificationCallback = Callable[[Notification], Union[None, Awaitable[None]]]

_KILL_WAIT_SECONDS = 5.0
# After stdout's EOF, how long to wait for the exit status (and after the exit, for EOF: a
# grandchild could hold the pipe) before reporting the connection closed anyway.
_EXIT_GRACE_SECONDS = 2.0
_STDERR_LINE_BYTES = 1 << 16


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


class _Connection(asyncio.SubprocessProtocol):
    """One running sidecar, as the protocol of its process: the pipes, driving the protocol core
    (:mod:`~mcp_sidecar._core`) from the event loop.

    Holds no reference to the public :class:`AsyncSidecar`, so that object can be garbage
    collected (its finalizer then closes the sidecar's stdin) while this keeps running.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, options: Options) -> None:
        self._loop = loop
        self.transport: Optional[asyncio.SubprocessTransport] = None
        self.stdin: Optional[asyncio.WriteTransport] = None
        self._max_line_bytes = options.max_line_bytes
        self._lines = LineSplitter(options.max_line_bytes)
        self._discarding = False  # after a fatal error: stdout is drained and ignored
        self.requests: Requests[asyncio.Future[Any]] = Requests(
            options.max_request_bytes(), _settle_future
        )
        self._write_paused = False
        self._drain_waiters: List[asyncio.Future[None]] = []
        # Notifications: the core's queue, and a wake-up of the iterators waiting on it.
        self.notes: Notifications[NotificationCallback] = Notifications(
            options.notification_queue_size
        )
        self._callback_tasks: Set[asyncio.Future[Any]] = set()
        self._queue_event = asyncio.Event()
        # Stderr to a logger.
        self._stderr_logger = options.stderr_logger()
        self._stderr_lines = LineSplitter(_STDERR_LINE_BYTES)
        # Ending.
        self.exited: asyncio.Future[Optional[int]] = loop.create_future()
        self._stdout_eof = False
        self._finish_timer: Optional[asyncio.TimerHandle] = None
        self.finished: asyncio.Future[None] = loop.create_future()  # EOF seen and exit known
        self._close_done: Optional[asyncio.Future[None]] = None

    @property
    def error(self) -> Optional[SidecarError]:
        """Why the connection ended (None while it runs)."""
        return self.requests.error

    @property
    def dropped(self) -> int:
        return self.notes.dropped

    # -- protocol callbacks -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.SubprocessTransport, transport)
        self.stdin = cast(asyncio.WriteTransport, self.transport.get_pipe_transport(0))

    def pipe_data_received(self, fd: int, data: Union[bytes, str]) -> None:
        assert isinstance(data, bytes)
        if fd == 1:
            if self._discarding:
                return
            splitter = self._lines
            try:
                for line in splitter.feed(data):
                    self._dispatch(line)
            except SidecarError as exc:  # a line that is not a JSON-RPC message
                self._fatal(exc)
                return
            if splitter.overflowed:
                self._fatal(line_too_large(self._max_line_bytes))
        elif fd == 2 and self._stderr_logger is not None:
            lines = self._stderr_lines.feed(data)
            if self._stderr_lines.overflowed:
                self._stderr_lines = LineSplitter(_STDERR_LINE_BYTES)
                lines.append(b"(an over-long stderr line was dropped)")
            for line in lines:
                self._stderr_logger.info("%s", line.decode("utf-8", "replace").rstrip())

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
        self, method: str, params: Optional[Mapping[str, Any]], timeout: Optional[float] = None
    ) -> Any:
        """Send one request and return its ``result``; raises :class:`SidecarError`."""
        future: asyncio.Future[Any] = self._loop.create_future()
        request_id, line = self.requests.begin(method, params, future)
        timer: Optional[asyncio.TimerHandle] = None
        try:
            self._send(line)
            if self._write_paused:  # backpressure: the sidecar is not reading fast enough
                waiter: asyncio.Future[None] = self._loop.create_future()
                self._drain_waiters.append(waiter)
                await waiter
            if timeout is not None:
                timer = self._loop.call_later(timeout, self._expire, request_id, method, timeout)
            return await future
        except asyncio.CancelledError:
            # The awaiting task was cancelled: forget the request and cancel it at the sidecar.
            self._send(self.requests.abandon(request_id))
            raise
        except SidecarError as exc:
            if exc.method is None:
                exc.method = method
            raise
        finally:
            if timer is not None:
                timer.cancel()

    def _expire(self, request_id: int, method: str, timeout: float) -> None:
        self._send(self.requests.expire(request_id, method, timeout))

    def _send(self, line: Optional[bytes]) -> None:
        stdin = self.stdin
        if line is not None and stdin is not None and not stdin.is_closing():
            stdin.write(line)

    # -- reading ----------------------------------------------------------------------------

    def _dispatch(self, line: bytes) -> None:
        routed = classify(line)
        if isinstance(routed, Notification):
            self._deliver(routed)
        elif routed is not None:
            self.requests.answer(*routed)

    def _fatal(self, error: SidecarError) -> None:
        """The sidecar's output cannot be trusted: fail everything, ignore the rest of stdout
        (still drained), close stdin so that the sidecar exits."""
        self._discarding = True
        self.fail(error)

    def _maybe_finish(self) -> None:
        """Report the end once stdout's EOF and the exit status are both known (or after a
        grace period when only one of them comes)."""
        if self.finished.done():
            return
        if self._stdout_eof and self.exited.done():
            self._finish(self.exited.result())
        elif self._finish_timer is None and (self._stdout_eof or self.exited.done()):
            self._finish_timer = self._loop.call_later(
                _EXIT_GRACE_SECONDS, self._finish, None
            )

    def _finish(self, code: Optional[int]) -> None:
        if self.finished.done():
            return
        if self._finish_timer is not None:
            self._finish_timer.cancel()
        if code is None and self.exited.done():
            code = self.exited.result()
        self.requests.end_of_output(code)
        self._ended()
        self.finished.set_result(None)
        if self.exited.done() and self.transport is not None:
            self.transport.close()  # every pipe is done and the process reaped

    # -- notifications ----------------------------------------------------------------------

    def add_callback(self, callback: NotificationCallback) -> Callable[[], None]:
        return self.notes.add_callback(callback)

    def _deliver(self, notification: Notification) -> None:
        notes = self.notes
        for outcome in notes.run_callbacks(notification, notes.callbacks):
            if hasattr(outcome, "__await__"):
                task = asyncio.ensure_future(outcome)
                self._callback_tasks.add(task)
                task.add_done_callback(self._callback_done)
        if notes.queue is not None:
            notes.push(notification)
            self._queue_event.set()

    def _callback_done(self, task: asyncio.Future[Any]) -> None:
        self._callback_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            _log.error("mcp-sidecar notification callback failed", exc_info=task.exception())

    async def iterate(self) -> AsyncIterator[Notification]:
        notes = self.notes
        queue = notes.require_queue()
        while True:
            while not queue:
                if notes.ended:
                    return
                self._queue_event.clear()
                await self._queue_event.wait()
            yield queue.popleft()

    # -- ending -----------------------------------------------------------------------------

    def fail(self, error: SidecarError) -> None:
        """End the connection: every pending and later request fails with ``error``."""
        self.requests.fail(error)
        self._ended()

    def _ended(self) -> None:
        self.close_stdin()
        self._wake_drain_waiters()
        self.notes.ended = True
        self._queue_event.set()

    def close_stdin(self) -> None:
        if self.stdin is not None and not self.stdin.is_closing():
            self.stdin.close()

    async def close(self, timeout: float) -> None:
        if self._close_done is not None:
            await asyncio.shield(self._close_done)
            return
        self._close_done = self._loop.create_future()
        try:
            await self._close(timeout)
        finally:
            self._close_done.set_result(None)

    async def _close(self, timeout: float) -> None:
        self.requests.closing = True
        deadline = self._loop.time() + timeout
        if self.error is None and not self.exited.done():
            try:
                await self.request("shutdown", None, timeout=max(timeout, 0.001))
            except SidecarError:
                pass
        self.close_stdin()
        try:
            await asyncio.wait_for(
                asyncio.shield(self.exited), max(deadline - self._loop.time(), 0.1)
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
        if self.transport is not None:
            self.transport.close()


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
    """An asyncio client of one ``mcp-sidecar`` process.

    Use it as ``async with AsyncSidecar(...) as sidecar:`` or ``sidecar = await
    AsyncSidecar.open(...)`` followed by ``await sidecar.close()``. Every method may be called from
    any number of tasks at once; each takes ``timeout`` (seconds, client side): when it runs out the
    request is cancelled at the sidecar and :class:`SidecarError` ``TIMEOUT`` is raised. Cancelling
    the awaiting task cancels the request the same way.

    Args:
        binary: the sidecar executable; default: ``$MCP_SIDECAR_BIN``, then the binary installed
            with this package, then ``PATH`` (see :func:`find_sidecar_bin`).
        tool_format: session tool format (``"openai"`` by default at the sidecar).
        name_template: exposed tool names (``"mcp__{server}__{tool}"`` by default).
        max_name_length: longest exposed name (16-256, 64 by default).
        client_info: ``{name, version}`` sent in ``initialize``.
        args: extra command-line flags of the sidecar (e.g. ``["--log", "debug"]``).
        env: the sidecar's environment (default: inherited).
        cwd: the sidecar's working directory.
        stderr: where the sidecar's log goes (see :data:`StderrTarget`); default inherited.
        max_line_bytes: longest line accepted from the sidecar's stdout (64 MiB); a longer
            one closes the client with ``LINE_TOO_LARGE``.
        notification_queue_size: notifications kept for :meth:`notifications`; when full the
            oldest is dropped (counted in :attr:`dropped_notifications`). 0: no queue.
        start_timeout: bound (seconds) on ``initialize`` at start.
        close_timeout: default bound (seconds) on ``shutdown`` plus exit in :meth:`close`.
        strict: session default of OpenAI strict mode for ``tools/list`` (``initialize``
            ``strict``; False at the sidecar).
        require_trust: every server needs the host's approval of its launch digest before it
            is started (``initialize`` ``requireTrust``): ``add_server``/``test_server`` raise
            ``TRUST_REQUIRED`` (``data["digest"]``) until called with ``trust=digest``.
    """

    def __init__(
        self,
        binary: Optional[PathArg] = None,
        *,
        tool_format: Optional[ToolFormat] = None,
        name_template: Optional[str] = None,
        max_name_length: Optional[int] = None,
        client_info: Optional[ClientInfo] = None,
        args: Sequence[str] = (),
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[PathArg] = None,
        stderr: StderrTarget = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        notification_queue_size: int = DEFAULT_NOTIFICATION_QUEUE_SIZE,
        start_timeout: Optional[float] = 30.0,
        close_timeout: float = 5.0,
        strict: Optional[bool] = None,
        require_trust: bool = False,
    ) -> None:
        self._options = Options(
            binary=binary,
            tool_format=tool_format,
            name_template=name_template,
            max_name_length=max_name_length,
            client_info=client_info,
            args=tuple(args),
            env=env,
            cwd=cwd,
            stderr=stderr,
            max_line_bytes=max_line_bytes,
            notification_queue_size=notification_queue_size,
            start_timeout=start_timeout,
            strict=strict,
            require_trust=require_trust,
        )
        self._close_timeout = close_timeout
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
            await loop.subprocess_exec(
                lambda: conn,
                *argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=options.popen_stderr(),
                env=options.popen_env(),
                cwd=fspath_or_none(options.cwd),
                start_new_session=os.name == "posix",
            )
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
        self._initialize_result = cast(InitializeResult, result)
        return self

    async def close(self, timeout: Optional[float] = None) -> None:
        """Send ``shutdown`` (the sidecar stops every server), wait for the process to exit, and
        kill it if it has not within ``timeout`` seconds (default ``close_timeout``). Requests
        still pending fail with ``CONNECTION_CLOSED``. Idempotent."""
        conn = self._conn
        if conn is None:
            return
        await conn.close(self._close_timeout if timeout is None else timeout)
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

    @property
    def initialize_result(self) -> InitializeResult:
        """The sidecar's ``initialize`` result (protocol version, serverInfo, capabilities)."""
        if self._initialize_result is None:
            raise RuntimeError("the client is not started")
        return self._initialize_result

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

    @property
    def dropped_notifications(self) -> int:
        """Notifications dropped from the full queue (the oldest go first)."""
        return 0 if self._conn is None else self._conn.dropped

    # -- methods ----------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
    ) -> Any:
        """Send any host-protocol request and return its raw ``result`` (for methods newer than
        this client; the typed methods below are preferred)."""
        return await self._require().request(method, params, timeout)

    async def add_server(
        self,
        name: str,
        config: Mapping[str, Any],
        *,
        wait: bool = True,
        trust: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> ServerStatus:
        """``servers/add``: start a server (config: :class:`ServerConfig`). A failed start is not
        an exception: the status has ``state: "error"`` and ``lastError``. With ``wait=False``
        the answer comes at once (``starting``); follow ``notifications/servers/changed``."""
        params = add_server_params(name, config, wait, trust)
        return cast(ServerStatus, await self._require().request("servers/add", params, timeout))

    async def remove_server(self, name: str, *, timeout: Optional[float] = None) -> None:
        """``servers/remove``: returns once the server's whole process tree is gone."""
        await self._require().request("servers/remove", {"name": name}, timeout)

    async def restart_server(self, name: str, *, timeout: Optional[float] = None) -> ServerStatus:
        """``servers/restart``: stop (whatever the state) and start again; the new status."""
        result = await self._require().request("servers/restart", {"name": name}, timeout)
        return cast(ServerStatus, result)

    async def list_servers(self, *, timeout: Optional[float] = None) -> ServersListResult:
        """``servers/list``: ``{"servers": [status, ...]}`` sorted by name."""
        return cast(ServersListResult, await self._require().request("servers/list", None, timeout))

    async def list_tools(
        self,
        format: Optional[ToolFormat] = None,
        servers: Optional[Sequence[str]] = None,
        *,
        strict: Optional[bool] = None,
        timeout: Optional[float] = None,
    ) -> ToolsListResult:
        """``tools/list``: ``{"tools": [entry, ...], "fingerprint": "sha256:..."}``; each entry's
        ``definition`` is in ``format`` (default: the session ``tool_format``)."""
        params = list_tools_params(format, servers, strict)
        return cast(ToolsListResult, await self._require().request("tools/list", params, timeout))

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout_ms: Optional[int] = None,
        format: Optional[ToolFormat] = None,
        timeout: Optional[float] = None,
    ) -> ToolCallResult:
        """``tools/call`` of an exposed tool name. ``timeout_ms`` is the sidecar's bound on the
        server's answer (``TOOL_TIMEOUT``); ``timeout`` (seconds) is the client's own bound
        (``TIMEOUT``); ``format`` is that of ``output`` (default: the session ``tool_format``).
        Cancelling the awaiting task cancels the call at the sidecar and the server. A result
        cut to fit (``resultPolicy: "truncate"``) has ``truncated``; see :meth:`read_result`."""
        params = call_tool_params(name, arguments, timeout_ms, format)
        return cast(ToolCallResult, await self._require().request("tools/call", params, timeout))

    async def load_servers(
        self,
        path: Optional[PathArg] = None,
        *,
        json: Optional[Mapping[str, Any]] = None,
        text: Optional[str] = None,
        dialect: Optional[ConfigDialect] = None,
        inputs: Optional[Mapping[str, str]] = None,
        trust: Optional[Mapping[str, str]] = None,
        wait: bool = True,
        timeout: Optional[float] = None,
    ) -> ServersLoadResult:
        """``servers/load``: add every server of a config, given as exactly one of ``path`` (a
        file of any dialect, or a directory scanned for plugins and ``.mcp.json``), ``json`` (a
        document) or ``text`` (TOML, YAML or JSON). ``dialect`` forces the dialect (detected
        otherwise); ``inputs`` fills ``${input:ID}``; ``trust`` maps server names to approved
        digests (``require_trust``). Problems are ``diagnostics``, never an exception; servers
        held back for trust are in ``trustRequired``."""
        params = load_servers_params(path, json, text, dialect, inputs, trust, wait)
        result = await self._require().request("servers/load", params, timeout)
        return cast(ServersLoadResult, result)

    async def test_server(
        self,
        config: Mapping[str, Any],
        *,
        name: Optional[str] = None,
        trust: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> ServersTestResult:
        """``servers/test``: start ``config`` as :meth:`add_server` would (handshake, tool
        discovery), stop it and report (``state``, ``tools``, ``timings``, ``stderrTail``,
        ``error``). Nothing is registered; ``name`` (default ``"test"``) may be taken or not.
        A failed start is ``state: "error"``, not an exception."""
        params = test_server_params(config, name, trust)
        result = await self._require().request("servers/test", params, timeout)
        return cast(ServersTestResult, result)

    async def read_result(
        self,
        handle: str,
        offset: Optional[int] = None,
        length: Optional[int] = None,
        *,
        timeout: Optional[float] = None,
    ) -> ResultsReadResult:
        """``results/read``: ``length`` bytes (at most, and by default, 256 KiB) from byte
        ``offset`` of the full text of a truncated call result (``result["truncated"]["handle"]``).
        A handle no longer kept raises ``RESULT_EXPIRED``."""
        params = read_result_params(handle, offset, length)
        result = await self._require().request("results/read", params, timeout)
        return cast(ResultsReadResult, result)

    async def ping(self, *, timeout: Optional[float] = None) -> None:
        """``ping``: a round trip to the sidecar."""
        await self._require().request("ping", None, timeout)

    async def shutdown(self, *, timeout: Optional[float] = None) -> None:
        """``shutdown``: stop every server; the sidecar then exits. Prefer :meth:`close`, which
        also waits for the exit (and kills a sidecar that does not)."""
        await self._require().request("shutdown", None, timeout)

    # -- notifications ----------------------------------------------------------------------

    def on_notification(self, callback: NotificationCallback) -> Callable[[], None]:
        """Call ``callback(notification)`` for every notification from now on, on the event loop
        (a returned awaitable runs as a task; exceptions are logged). Returns a function that
        unregisters it. The client must be started."""
        return self._require().add_callback(callback)

    def notifications(self) -> AsyncIterator[Notification]:
        """Notifications received since start, oldest first, from a bounded queue
        (``notification_queue_size``; when full the oldest is dropped). The iteration ends when
        the client closes. Use one iterator at a time (several would share the items)."""
        return self._require().iterate()

