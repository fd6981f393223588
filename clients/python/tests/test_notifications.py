"""Notifications: callbacks and iterators on both clients, the bounded queue, idle delivery."""

from __future__ import annotations

import asyncio
import threading
from typing import List

import support
from mcp_sidecar import (
    SERVERS_CHANGED,
    TOOLS_CHANGED,
    AsyncSidecar,
    Notification,
    Sidecar,
)


def test_async_callback_and_iterator() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            seen: List[Notification] = []
            ready = asyncio.Event()
            from_coroutine: List[str] = []

            def on_note(note: Notification) -> None:
                seen.append(note)
                if note.method == SERVERS_CHANGED and note.params["status"]["state"] == "ready":
                    ready.set()

            async def on_note_async(note: Notification) -> None:
                from_coroutine.append(note.method)

            sidecar.on_notification(on_note)
            remove = sidecar.on_notification(on_note_async)
            status = await sidecar.add_server("fx", support.fixture_config(), wait=False)
            assert status["state"] == "starting"
            await asyncio.wait_for(ready.wait(), 10.0)
            # The iterator yields what arrived since start, in order.
            iterator = sidecar.notifications()
            methods = []
            while TOOLS_CHANGED not in methods:
                note = await asyncio.wait_for(iterator.__anext__(), 10.0)
                methods.append(note.method)
            assert methods[0] == SERVERS_CHANGED
            tools_changed = [n for n in seen if n.method == TOOLS_CHANGED][0]
            assert tools_changed.params["added"] and tools_changed.params["fingerprint"].startswith("sha256:")
            await asyncio.sleep(0)  # let the coroutine callbacks' tasks run
            assert SERVERS_CHANGED in from_coroutine
            remove()
            count = len(from_coroutine)
            await sidecar.remove_server("fx")
            await asyncio.sleep(0)
            assert len(from_coroutine) == count  # unregistered
        # Closing ends the iteration.
        rest = [n async for n in iterator]
        assert all(isinstance(n, Notification) for n in rest)

    asyncio.run(main())


def test_sync_callback_runs_while_idle() -> None:
    """With wait=False the outcome arrives while no call is in flight: the background reader
    delivers it."""
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        ready = threading.Event()
        threads: List[str] = []

        def on_note(note: Notification) -> None:
            threads.append(threading.current_thread().name)
            if note.method == SERVERS_CHANGED and note.params["status"]["state"] == "ready":
                ready.set()

        sidecar.on_notification(on_note)
        assert sidecar.add_server("fx", support.fixture_config(), wait=False)["state"] == "starting"
        assert ready.wait(10.0)
        assert set(threads) == {"mcp-sidecar-reader"}
        methods = [n.method for n in sidecar.notifications(timeout=1.0) if True]
        assert SERVERS_CHANGED in methods and TOOLS_CHANGED in methods


def test_sync_callback_may_call_the_client() -> None:
    """Callbacks run while nobody holds the read role, so one may block on a call of its own."""
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        answered = threading.Event()

        def on_note(note: Notification) -> None:
            if note.method == SERVERS_CHANGED and not answered.is_set():
                sidecar.list_servers(timeout=10.0)
                answered.set()

        sidecar.on_notification(on_note)
        sidecar.add_server("fx", support.fixture_config())
        assert answered.wait(15.0)


def test_sync_iterator_ends_on_close() -> None:
    sidecar = Sidecar(support.SIDECAR_BIN)
    sidecar.add_server("fx", support.fixture_config())
    got: List[Notification] = []
    done = threading.Event()

    def consume() -> None:
        for note in sidecar.notifications():
            got.append(note)
        done.set()

    thread = threading.Thread(target=consume)
    thread.start()
    sidecar.close()
    assert done.wait(5.0)
    thread.join(5.0)
    assert any(n.method == SERVERS_CHANGED for n in got)


def test_queue_is_bounded_and_drops_the_oldest(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fake = support.write_fake_sidecar(str(tmp_path))

    async def main() -> None:
        sidecar = await AsyncSidecar.open(fake, args=["notify-flood"], notification_queue_size=10)
        await sidecar.ping()  # the flood came before the ping answer
        assert sidecar.dropped_notifications == 40
        await sidecar.close()
        kept = [n.params["i"] async for n in sidecar.notifications()]
        assert kept == list(range(40, 50))

    asyncio.run(main())

    with Sidecar(fake, args=["notify-flood"], notification_queue_size=10) as sidecar:
        sidecar.ping()
        assert sidecar.dropped_notifications == 40
        kept = [n.params["i"] for n in sidecar.notifications(timeout=0)]
        assert kept == list(range(40, 50))
