"""Runs the shared client scenarios (``proto/scenarios/scenarios.json``) through the typed API of
either client: one runner, two drivers (``AsyncDriver`` over ``AsyncSidecar``, ``SyncDriver``
over ``Sidecar``). Unknown ops, unknown fields and unknown initialize options fail the run, so a
scenario added to the shared file must be taught here.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from mcp_sidecar import (
    ROOTS_LIST,
    AsyncSidecar,
    CancelToken,
    HandlerError,
    Notification,
    Sidecar,
    SidecarError,
)

import support

#: Fields each op may carry (besides "op").
OPS: Dict[str, Set[str]] = {
    "addServer": {"name", "fixtureArgs", "config", "wait", "expect", "expectError"},
    "removeServer": {"name", "expect", "expectError"},
    "restartServer": {"name", "expect", "expectError"},
    "listServers": {"expect", "expectError"},
    "listTools": {"format", "servers", "expect", "expectCount", "expectError"},
    "callTool": {
        "tool",
        "arguments",
        "timeoutMs",
        "progress",
        "expectLastProgress",
        "expect",
        "expectError",
    },
    "callConcurrently": {"tool", "count", "message"},
    "cancelCall": {"tool", "arguments"},
    "expectNotification": {"method", "expect"},
    "rememberPid": {"server", "as"},
    "shutdown": set(),
    "expectDead": {"pids"},
    "listResources": {"server", "expect", "expectError"},
    "listResourceTemplates": {"server", "expect", "expectError"},
    "listPrompts": {"server", "expect", "expectError"},
    "readResource": {"server", "uri", "expect", "expectError"},
    "subscribeResource": {"server", "uri", "expect", "expectError"},
    "unsubscribeResource": {"server", "uri", "expect", "expectError"},
    "getPrompt": {"server", "name", "arguments", "expect", "expectError"},
    "complete": {"params", "expect", "expectError"},
    "setLogLevel": {"level", "server", "expect", "expectError"},
    "expectLog": {"expect"},
    "expectNoLog": {"expect"},
    "searchTools": {"query", "limit", "expect", "expectError"},
    "serverStats": {"expect", "expectError"},
    "setRoots": {"roots"},
    "expectHandled": {"method", "expect", "count"},
}
SCENARIO_FIELDS = {"name", "initialize", "steps", "handlers"}
HANDLER_FIELDS = {"answer", "error"}
INITIALIZE_OPTIONS = {
    "toolFormat": "tool_format",
    "nameTemplate": "name_template",
    "maxNameLength": "max_name_length",
}
NOTIFICATION_WAIT = 10.0
CANCEL_WAIT = 2.0
DEAD_WAIT = 5.0


def load_scenarios() -> List[Dict[str, Any]]:
    with open(support.SCENARIOS_JSON, encoding="utf-8") as f:
        document = json.load(f)
    assert document.get("version") == 1, f"unknown scenarios version {document.get('version')!r}"
    unknown = set(document) - {"version", "scenarios"}
    assert not unknown, f"unknown top-level fields in scenarios.json: {sorted(unknown)}"
    return list(document["scenarios"])


def mismatches(expect: Any, actual: Any, path: str = "$") -> List[str]:
    """Differences between a pattern (scenarios README) and a value; [] when it matches."""
    if isinstance(expect, str) and expect == "<any>":
        return []
    if isinstance(expect, str) and expect.startswith("<contains:") and expect.endswith(">"):
        needle = expect[len("<contains:") : -1]
        if isinstance(actual, str) and needle in actual:
            return []
        return [f"{path}: expected a string containing {needle!r}, got {actual!r}"]
    if isinstance(expect, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        found: List[str] = []
        for key, value in expect.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing (have {sorted(actual)})")
            else:
                found += mismatches(value, actual[key], f"{path}.{key}")
        return found
    if isinstance(expect, list):
        if not isinstance(actual, list):
            return [f"{path}: expected an array, got {actual!r}"]
        if len(actual) != len(expect):
            return [f"{path}: expected {len(expect)} elements, got {len(actual)}: {actual!r}"]
        found = []
        for i, (e, a) in enumerate(zip(expect, actual)):
            found += mismatches(e, a, f"{path}[{i}]")
        return found
    if isinstance(expect, bool) != isinstance(actual, bool) or expect != actual:
        return [f"{path}: expected {expect!r}, got {actual!r}"]
    return []


class Handled:
    """The params each scenario handler was called with, by method (handlers run on the client's
    handler threads or tasks; waiters wake on every call)."""

    def __init__(self) -> None:
        self.calls: Dict[str, List[Dict[str, Any]]] = {}
        self.cond = threading.Condition()

    def record(self, method: str, params: Dict[str, Any]) -> None:
        with self.cond:
            self.calls.setdefault(method, []).append(params)
            self.cond.notify_all()

    def check(self, method: str, count: int, pattern: Any) -> bool:
        calls = self.calls.get(method, [])
        return len(calls) >= count and not mismatches(pattern, calls[count - 1])


def handler_outcome(spec: Dict[str, Any]) -> Dict[str, Any]:
    """What a scenario handler answers: its ``answer``, or raises its ``error``."""
    if "error" in spec:
        error = spec["error"]
        raise HandlerError(error["code"], error["message"], error.get("data"))
    return dict(spec["answer"])


class Driver:
    """What the runner needs from a client; each method uses the client's typed API."""

    handled: Handled

    def start(self, options: Dict[str, Any]) -> None:
        raise NotImplementedError

    def invoke(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call the client's typed method ``method``."""
        raise NotImplementedError

    def call_tool_with_progress(
        self, name: str, arguments: Any, timeout_ms: Optional[int]
    ) -> Tuple[Any, List[Dict[str, Any]]]:
        """The call's result, and every progress update its callback got before the result."""
        raise NotImplementedError

    def handler_options(self, handlers: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
        """The client options registering a recording handler per scenario handler."""
        raise NotImplementedError

    def wait_log(self, match: Callable[[Dict[str, Any]], bool], timeout: float) -> bool:
        raise NotImplementedError

    def logs_so_far(self) -> List[Dict[str, Any]]:
        raise NotImplementedError

    def wait_handled(self, method: str, count: int, pattern: Any, timeout: float) -> bool:
        raise NotImplementedError

    def close(self) -> Optional[int]:
        raise NotImplementedError

    def add_server(self, name: str, config: Dict[str, Any], wait: bool) -> Any:
        raise NotImplementedError

    def remove_server(self, name: str) -> Any:
        raise NotImplementedError

    def restart_server(self, name: str) -> Any:
        raise NotImplementedError

    def list_servers(self) -> Any:
        raise NotImplementedError

    def list_tools(self, format: Optional[str], servers: Optional[List[str]]) -> Any:
        raise NotImplementedError

    def call_tool(self, name: str, arguments: Any, timeout_ms: Optional[int]) -> Any:
        raise NotImplementedError

    def call_concurrently(self, name: str, messages: List[str]) -> List[Any]:
        raise NotImplementedError

    def cancel_call(self, name: str, arguments: Any) -> str:
        raise NotImplementedError

    def wait_notification(self, match: Callable[[Notification], bool], timeout: float) -> bool:
        raise NotImplementedError


class AsyncDriver(Driver):
    """Drives :class:`AsyncSidecar` on a private event loop (run for each step). Notifications are
    collected through ``notifications()``, the async iterator."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.client: Optional[AsyncSidecar] = None
        self.notes: List[Notification] = []
        self.arrived: Optional[asyncio.Event] = None
        self.collector: Optional[asyncio.Future[None]] = None
        self.logs: List[Dict[str, Any]] = []
        self.log_collector: Optional[asyncio.Future[None]] = None
        self.handled = Handled()
        self.handled_event: Optional[asyncio.Event] = None  # made on the loop (Python 3.9)

    def _run(self, awaitable: Any, timeout: float = support.CALL_TIMEOUT) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(awaitable, timeout))

    def start(self, options: Dict[str, Any]) -> None:
        async def start() -> None:
            self.handled_event = asyncio.Event()
            self.client = await AsyncSidecar.open(support.SIDECAR_BIN, **options)
            self.arrived = asyncio.Event()
            self.collector = asyncio.ensure_future(self._collect())
            self.log_collector = asyncio.ensure_future(self._collect_logs())

        self._run(start())

    async def _collect(self) -> None:
        assert self.client is not None and self.arrived is not None
        async for note in self.client.notifications():
            self.notes.append(note)
            self.arrived.set()

    async def _collect_logs(self) -> None:
        assert self.client is not None and self.arrived is not None
        async for params in self.client.logs():
            self.logs.append(dict(params))
            self.arrived.set()

    def handler_options(self, handlers: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
        def make(method: str, spec: Dict[str, Any]) -> Any:
            async def handle(params: Dict[str, Any]) -> Any:
                self.handled.record(method, params)
                assert self.handled_event is not None
                self.handled_event.set()
                if method == ROOTS_LIST and "answer" in spec:
                    assert self.client is not None
                    return {"roots": self.client.roots}  # what set_roots last gave
                return handler_outcome(spec)

            return handle

        options: Dict[str, Any] = {"handlers": {m: make(m, h) for m, h in handlers.items()}}
        if ROOTS_LIST in handlers and "answer" in handlers[ROOTS_LIST]:
            options["roots"] = handlers[ROOTS_LIST]["answer"]["roots"]
        return options

    def invoke(self, method: str, *args: Any, **kwargs: Any) -> Any:
        assert self.client is not None
        outcome = getattr(self.client, method)(*args, **kwargs)
        return self._run(outcome) if asyncio.iscoroutine(outcome) else outcome

    def call_tool_with_progress(
        self, name: str, arguments: Any, timeout_ms: Optional[int]
    ) -> Tuple[Any, List[Dict[str, Any]]]:
        assert self.client is not None
        updates: List[Dict[str, Any]] = []
        call = self.client.call_tool(
            name, arguments, timeout_ms=timeout_ms, progress=lambda p: updates.append(dict(p))
        )
        result = self._run(call)
        return result, list(updates)  # a copy: what came before the result

    async def _wait_for(self, ready: Callable[[], bool], event: asyncio.Event, timeout: float) -> bool:
        deadline = self.loop.time() + timeout
        while True:
            if ready():
                return True
            remaining = deadline - self.loop.time()
            if remaining <= 0:
                return False
            event.clear()
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except asyncio.TimeoutError:
                pass

    def wait_log(self, match: Callable[[Dict[str, Any]], bool], timeout: float) -> bool:
        assert self.arrived is not None
        ready = lambda: any(match(p) for p in self.logs)  # noqa: E731
        return bool(self._run(self._wait_for(ready, self.arrived, timeout), timeout + 5.0))

    def logs_so_far(self) -> List[Dict[str, Any]]:
        return list(self.logs)

    def wait_handled(self, method: str, count: int, pattern: Any, timeout: float) -> bool:
        assert self.handled_event is not None
        ready = lambda: self.handled.check(method, count, pattern)  # noqa: E731
        return bool(self._run(self._wait_for(ready, self.handled_event, timeout), timeout + 5.0))

    def close(self) -> Optional[int]:
        try:
            if self.client is not None:
                self._run(self.client.close())
                if self.collector is not None:
                    self._run(self.collector, 5.0)  # the iteration ends when the client closes
                if self.log_collector is not None:
                    self._run(self.log_collector, 5.0)
            return None if self.client is None else self.client.returncode
        finally:
            self.loop.close()

    def add_server(self, name: str, config: Dict[str, Any], wait: bool) -> Any:
        assert self.client is not None
        return self._run(self.client.add_server(name, config, wait=wait))

    def remove_server(self, name: str) -> Any:
        assert self.client is not None
        self._run(self.client.remove_server(name))
        return {}

    def restart_server(self, name: str) -> Any:
        assert self.client is not None
        return self._run(self.client.restart_server(name))

    def list_servers(self) -> Any:
        assert self.client is not None
        return self._run(self.client.list_servers())

    def list_tools(self, format: Optional[str], servers: Optional[List[str]]) -> Any:
        assert self.client is not None
        return self._run(self.client.list_tools(format, servers))  # type: ignore[arg-type]

    def call_tool(self, name: str, arguments: Any, timeout_ms: Optional[int]) -> Any:
        assert self.client is not None
        return self._run(self.client.call_tool(name, arguments, timeout_ms=timeout_ms))

    def call_concurrently(self, name: str, messages: List[str]) -> List[Any]:
        client = self.client
        assert client is not None

        async def together() -> List[Any]:
            return list(await asyncio.gather(*(client.call_tool(name, {"message": m}) for m in messages)))

        return list(self._run(together()))

    def cancel_call(self, name: str, arguments: Any) -> str:
        client = self.client
        assert client is not None

        async def cancel() -> str:
            task = asyncio.ensure_future(client.call_tool(name, arguments))
            await asyncio.sleep(0)  # the task runs up to its first await: the request is written
            task.cancel()
            try:
                await asyncio.wait_for(task, CANCEL_WAIT)
            except asyncio.CancelledError:
                return "CANCELLED"  # asyncio's own way: the awaiting task sees CancelledError
            except SidecarError as exc:
                return exc.code
            return "no error"

        return str(self._run(cancel()))

    def wait_notification(self, match: Callable[[Notification], bool], timeout: float) -> bool:
        assert self.arrived is not None
        ready = lambda: any(match(n) for n in self.notes)  # noqa: E731
        return bool(self._run(self._wait_for(ready, self.arrived, timeout), timeout + 5.0))


class SyncDriver(Driver):
    """Drives :class:`Sidecar`; notifications are collected through ``on_notification``."""

    def __init__(self) -> None:
        self.client: Optional[Sidecar] = None
        self.notes: List[Notification] = []
        self.logs: List[Dict[str, Any]] = []
        self.cond = threading.Condition()
        self.handled = Handled()
        self.log_reader: Optional[threading.Thread] = None

    def start(self, options: Dict[str, Any]) -> None:
        self.client = Sidecar(support.SIDECAR_BIN, **options)
        self.client.on_notification(self._on_note)
        # Notifications that arrived before the callback was registered are in the queue.
        for note in self.client.notifications(timeout=0):
            self._on_note(note)
        self.log_reader = threading.Thread(target=self._read_logs, args=(self.client,))
        self.log_reader.start()

    def _read_logs(self, client: Sidecar) -> None:
        for params in client.logs():  # ends when the client closes
            with self.cond:
                self.logs.append(dict(params))
                self.cond.notify_all()

    def handler_options(self, handlers: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
        def make(method: str, spec: Dict[str, Any]) -> Any:
            def handle(params: Dict[str, Any]) -> Any:
                self.handled.record(method, params)
                if method == ROOTS_LIST and "answer" in spec:
                    return {"roots": self._c().roots}  # what set_roots last gave
                return handler_outcome(spec)

            return handle

        options: Dict[str, Any] = {"handlers": {m: make(m, h) for m, h in handlers.items()}}
        if ROOTS_LIST in handlers and "answer" in handlers[ROOTS_LIST]:
            options["roots"] = handlers[ROOTS_LIST]["answer"]["roots"]
        return options

    def invoke(self, method: str, *args: Any, **kwargs: Any) -> Any:
        function = getattr(self._c(), method)
        if method != "set_roots":
            kwargs["timeout"] = support.CALL_TIMEOUT
        return function(*args, **kwargs)

    def call_tool_with_progress(
        self, name: str, arguments: Any, timeout_ms: Optional[int]
    ) -> Tuple[Any, List[Dict[str, Any]]]:
        updates: List[Dict[str, Any]] = []
        result = self._c().call_tool(
            name,
            arguments,
            timeout_ms=timeout_ms,
            timeout=support.CALL_TIMEOUT,
            progress=lambda p: updates.append(dict(p)),
        )
        return result, list(updates)

    def wait_log(self, match: Callable[[Dict[str, Any]], bool], timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: any(match(p) for p in self.logs), timeout)

    def logs_so_far(self) -> List[Dict[str, Any]]:
        with self.cond:
            return list(self.logs)

    def wait_handled(self, method: str, count: int, pattern: Any, timeout: float) -> bool:
        with self.handled.cond:
            return self.handled.cond.wait_for(
                lambda: self.handled.check(method, count, pattern), timeout
            )

    def _on_note(self, note: Notification) -> None:
        with self.cond:
            self.notes.append(note)
            self.cond.notify_all()

    def close(self) -> Optional[int]:
        if self.client is None:
            return None
        self.client.close()
        if self.log_reader is not None:
            self.log_reader.join(5.0)  # the log iteration ends when the client closes
        return self.client.returncode

    def _c(self) -> Sidecar:
        assert self.client is not None
        return self.client

    def add_server(self, name: str, config: Dict[str, Any], wait: bool) -> Any:
        return self._c().add_server(name, config, wait=wait, timeout=support.CALL_TIMEOUT)

    def remove_server(self, name: str) -> Any:
        self._c().remove_server(name, timeout=support.CALL_TIMEOUT)
        return {}

    def restart_server(self, name: str) -> Any:
        return self._c().restart_server(name, timeout=support.CALL_TIMEOUT)

    def list_servers(self) -> Any:
        return self._c().list_servers(timeout=support.CALL_TIMEOUT)

    def list_tools(self, format: Optional[str], servers: Optional[List[str]]) -> Any:
        return self._c().list_tools(format, servers, timeout=support.CALL_TIMEOUT)  # type: ignore[arg-type]

    def call_tool(self, name: str, arguments: Any, timeout_ms: Optional[int]) -> Any:
        return self._c().call_tool(
            name, arguments, timeout_ms=timeout_ms, timeout=support.CALL_TIMEOUT
        )

    def call_concurrently(self, name: str, messages: List[str]) -> List[Any]:
        client = self._c()
        barrier = threading.Barrier(len(messages))

        def call(message: str) -> Any:
            barrier.wait(support.CALL_TIMEOUT)  # started together
            return client.call_tool(name, {"message": message}, timeout=support.CALL_TIMEOUT)

        with ThreadPoolExecutor(max_workers=len(messages)) as pool:
            return list(pool.map(call, messages, timeout=support.CALL_TIMEOUT))

    def cancel_call(self, name: str, arguments: Any) -> str:
        client = self._c()
        token = CancelToken()
        outcome: List[str] = []

        def call() -> None:
            try:
                client.call_tool(name, arguments, cancel=token, timeout=support.CALL_TIMEOUT)
                outcome.append("no error")
            except SidecarError as exc:
                outcome.append(exc.code)

        thread = threading.Thread(target=call)
        thread.start()
        assert token.wait_sent(support.CALL_TIMEOUT), "the call was never sent"
        token.cancel()
        thread.join(CANCEL_WAIT)
        if thread.is_alive():
            thread.join(support.CALL_TIMEOUT)
            return f"not finished within {CANCEL_WAIT} s"
        return outcome[0]

    def wait_notification(self, match: Callable[[Notification], bool], timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: any(match(n) for n in self.notes), timeout)


def run_scenario(scenario: Dict[str, Any], driver: Driver) -> None:
    """Run one scenario; raises AssertionError naming the step that failed."""
    unknown = set(scenario) - SCENARIO_FIELDS
    assert not unknown, f"scenario {scenario.get('name')!r}: unknown fields {sorted(unknown)}"
    name = scenario["name"]
    init = scenario.get("initialize", {})
    unknown = set(init) - set(INITIALIZE_OPTIONS)
    assert not unknown, f"scenario {name!r}: unknown initialize options {sorted(unknown)}"
    for i, step in enumerate(scenario["steps"]):
        op = step.get("op")
        assert op in OPS, f"scenario {name!r} step {i}: unknown op {op!r}"
        extra = set(step) - OPS[op] - {"op"}
        assert not extra, f"scenario {name!r} step {i} ({op}): unknown fields {sorted(extra)}"

    handlers = scenario.get("handlers", {})
    for method, spec in handlers.items():
        assert isinstance(spec, dict) and len(spec) == 1 and set(spec) <= HANDLER_FIELDS, (
            f"scenario {name!r}: handler {method!r} must be {{answer}} or {{error}}, got {spec!r}"
        )
    options = {INITIALIZE_OPTIONS[k]: v for k, v in init.items()}
    if handlers:
        options.update(driver.handler_options(handlers))
    driver.start(options)
    closed = False
    pids: Dict[str, int] = {}
    try:
        for i, step in enumerate(scenario["steps"]):
            where = f"scenario {name!r} step {i} ({step['op']})"
            if step["op"] == "shutdown":
                code = driver.close()
                closed = True
                assert code == 0, f"{where}: the sidecar exited with {code!r}, expected 0"
            else:
                _run_step(driver, step, where, pids)
    finally:
        if not closed:
            driver.close()


def _run_step(driver: Driver, step: Dict[str, Any], where: str, pids: Dict[str, int]) -> None:
    op = step["op"]
    if op == "callConcurrently":
        messages = [f"{step['message']}-{i}" for i in range(step["count"])]
        results = driver.call_concurrently(step["tool"], messages)
        texts = [r["text"] for r in results]
        assert texts == messages, f"{where}: texts {texts} != {messages}"
        return
    if op == "cancelCall":
        code = driver.cancel_call(step["tool"], step.get("arguments", {}))
        assert code == "CANCELLED", f"{where}: expected CANCELLED, got {code}"
        return
    if op == "expectNotification":
        method, pattern = step["method"], step.get("expect", {})

        def match(note: Notification) -> bool:
            return note.method == method and not mismatches(pattern, note.params)

        assert driver.wait_notification(match, NOTIFICATION_WAIT), (
            f"{where}: no {method} matching {pattern} within {NOTIFICATION_WAIT} s"
        )
        return
    if op == "expectLog":
        pattern = step["expect"]
        assert driver.wait_log(lambda p: not mismatches(pattern, p), NOTIFICATION_WAIT), (
            f"{where}: no log matching {pattern} within {NOTIFICATION_WAIT} s; "
            f"got {driver.logs_so_far()}"
        )
        return
    if op == "expectNoLog":
        pattern = step["expect"]
        found = [p for p in driver.logs_so_far() if not mismatches(pattern, p)]
        assert not found, f"{where}: logs matching {pattern} arrived: {found}"
        return
    if op == "setRoots":
        driver.invoke("set_roots", step["roots"])
        return
    if op == "expectHandled":
        method, count, pattern = step["method"], step.get("count", 1), step["expect"]
        assert driver.wait_handled(method, count, pattern, NOTIFICATION_WAIT), (
            f"{where}: the {method} handler was not called {count} time(s), the last with "
            f"params matching {pattern}, within {NOTIFICATION_WAIT} s; calls: "
            f"{driver.handled.calls.get(method, [])}"
        )
        return
    if op == "callTool" and step.get("progress"):
        result, updates = driver.call_tool_with_progress(
            step["tool"], step.get("arguments", {}), step.get("timeoutMs")
        )
        assert updates, f"{where}: the progress callback was never called before the result"
        if "expectLastProgress" in step:
            found = mismatches(step["expectLastProgress"], updates[-1])
            assert not found, f"{where}: last progress {updates[-1]} does not match:\n  " + (
                "\n  ".join(found)
            )
        _check_result(step, result, where)
        return
    if op == "rememberPid":
        servers = driver.list_servers()["servers"]
        status = next((s for s in servers if s["name"] == step["server"]), None)
        assert status is not None and "pid" in status, f"{where}: no pid for {step['server']}"
        pids[step["as"]] = status["pid"]
        return
    if op == "expectDead":
        for label in step["pids"]:
            pid = pids[label]
            assert support.wait_until(lambda: support.pid_gone(pid), DEAD_WAIT), (
                f"{where}: {label} (pid {pid}) still alive after {DEAD_WAIT} s"
            )
        return

    calls: Dict[str, Callable[[], Any]] = {
        "addServer": lambda: driver.add_server(
            step["name"],
            {
                "command": support.FIXTURE_BIN,
                "args": list(step.get("fixtureArgs", [])),
                **step.get("config", {}),
            },
            step.get("wait", True),
        ),
        "removeServer": lambda: driver.remove_server(step["name"]),
        "restartServer": lambda: driver.restart_server(step["name"]),
        "listServers": lambda: driver.list_servers(),
        "listTools": lambda: driver.list_tools(step.get("format"), step.get("servers")),
        "callTool": lambda: driver.call_tool(
            step["tool"], step.get("arguments", {}), step.get("timeoutMs")
        ),
        "listResources": lambda: driver.invoke("list_resources", step.get("server")),
        "listResourceTemplates": lambda: driver.invoke(
            "list_resource_templates", step.get("server")
        ),
        "listPrompts": lambda: driver.invoke("list_prompts", step.get("server")),
        "readResource": lambda: driver.invoke("read_resource", step["server"], step["uri"]),
        "subscribeResource": lambda: _empty(
            driver.invoke("subscribe_resource", step["server"], step["uri"])
        ),
        "unsubscribeResource": lambda: _empty(
            driver.invoke("unsubscribe_resource", step["server"], step["uri"])
        ),
        "getPrompt": lambda: driver.invoke(
            "get_prompt", step["server"], step["name"], step.get("arguments")
        ),
        "complete": lambda: driver.invoke(
            "complete",
            step["params"]["server"],
            step["params"]["ref"],
            step["params"]["argument"],
            step["params"].get("context"),
        ),
        "setLogLevel": lambda: driver.invoke(
            "set_log_level", step["level"], server=step.get("server")
        ),
        "searchTools": lambda: driver.invoke("search_tools", step["query"], limit=step.get("limit")),
        "serverStats": lambda: driver.invoke("server_stats"),
    }
    try:
        result = calls[op]()
    except SidecarError as exc:
        if "expectError" in step:
            assert exc.code == step["expectError"], (
                f"{where}: expected error {step['expectError']}, got {exc!r}"
            )
            return
        raise AssertionError(f"{where}: unexpected error {exc!r}") from exc
    _check_result(step, result, where)


def _empty(result: None) -> Dict[str, Any]:
    """The ``{}`` result of a method whose typed call returns None."""
    assert result is None
    return {}


def _check_result(step: Dict[str, Any], result: Any, where: str) -> None:
    assert "expectError" not in step, (
        f"{where}: expected error {step['expectError']}, got result {result!r}"
    )
    if "expect" in step:
        found = mismatches(step["expect"], result)
        assert not found, f"{where}: result does not match:\n  " + "\n  ".join(found)
    if "expectCount" in step:
        count = len(result["tools"])
        assert count == step["expectCount"], f"{where}: {count} tools, expected {step['expectCount']}"
