"""Splitting the sidecar's stdout into lines, with a bound on the length of one line.

Owns the framing of protocol §1 on the client side: bytes in, complete lines out (without the
``\\n``, except that a chunk that is exactly one line is returned whole: the JSON decoder ignores
the trailing whitespace). A partial line is kept as a list of chunks (joined once complete), so a
long line costs O(its length), and is refused as soon as it grows past ``limit`` bytes, before it
is buffered further.
"""

from __future__ import annotations

from typing import List

__all__ = ["LineSplitter"]


class LineSplitter:
    """Feed it chunks, get complete lines. Once a line exceeds ``limit``, ``overflowed`` is set:
    the lines completed before it are still returned, and nothing after it ever is."""

    __slots__ = ("limit", "overflowed", "_parts", "_size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.overflowed = False
        self._parts: List[bytes] = []
        self._size = 0

    def feed(self, data: bytes) -> List[bytes]:
        """The lines completed by ``data``, in order (check ``overflowed`` afterwards)."""
        if self.overflowed:
            return []
        newline = data.find(b"\n")
        if newline < 0:
            self._hold(data)
            return []
        limit = self.limit
        if self._parts:
            self._parts.append(data[:newline])
            first = b"".join(self._parts)
            self._parts = []
            self._size = 0
        elif newline == len(data) - 1:
            if newline > limit:
                self.overflowed = True
                return []
            return [data]  # the common case: exactly one line
        else:
            first = data[:newline]
        if len(first) > limit:
            self.overflowed = True
            return []
        lines = [first]
        start = newline + 1
        find = data.find
        while True:
            newline = find(b"\n", start)
            if newline < 0:
                break
            if newline - start > limit:
                self.overflowed = True
                return lines
            lines.append(data[start:newline])
            start = newline + 1
        if start < len(data):
            self._hold(data[start:])
        return lines

    def _hold(self, chunk: bytes) -> None:
        self._size += len(chunk)
        if self._size > self.limit:
            self.overflowed = True
            self._parts = []
        else:
            self._parts.append(chunk)
