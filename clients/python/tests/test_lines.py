"""The bounded line splitter shared by both clients."""

from __future__ import annotations

from mcp_sidecar._lines import LineSplitter


def test_lines_across_chunks() -> None:
    s = LineSplitter(10)
    assert s.feed(b"abc") == []
    assert s.feed(b"de\nfg\nh") == [b"abcde", b"fg"]
    assert s.feed(b"i\n") == [b"hi"]
    assert s.feed(b"0123456789\n") == [b"0123456789\n"]  # one whole line: returned as is
    assert not s.overflowed


def test_lines_before_an_overlong_one_are_kept() -> None:
    s = LineSplitter(10)
    assert s.feed(b"ok\n01234567890\nafter\n") == [b"ok"]
    assert s.overflowed
    assert s.feed(b"more\n") == []


def test_overflow_is_detected_before_the_newline_arrives() -> None:
    s = LineSplitter(10)
    assert s.feed(b"0123456") == []
    assert s.feed(b"7890") == []
    assert s.overflowed


def test_a_long_line_in_many_chunks() -> None:
    s = LineSplitter(1 << 20)
    chunk = b"x" * 4096
    for _ in range(100):
        assert s.feed(chunk) == []
    assert s.feed(b"\n") == [chunk * 100]
