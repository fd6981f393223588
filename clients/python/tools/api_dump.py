#!/usr/bin/env python3
"""Dumps the public API of the ``mcp_sidecar`` package as text: every public name of its public
modules, and for each class its bases and public members, with signatures and docstrings.

    python3 clients/python/tools/api_dump.py > api.txt

A refactoring of the client keeps this dump identical (``tests/test_api_dump.py`` compares it
with ``tools/api.txt``; rewrite that file with ``--write`` when the API changes on purpose).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any, List

HERE = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("MCP_SIDECAR_TEST_INSTALLED") != "1":  # else: the installed package's API
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

MODULES = ["mcp_sidecar", "mcp_sidecar.sync", "mcp_sidecar.aio"]
SNAPSHOT = os.path.join(HERE, "api.txt")


def signature(obj: Any) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(?)"


def doc(obj: Any, indent: str) -> List[str]:
    text = obj.__doc__ if isinstance(obj, type) else inspect.getdoc(obj)
    if not text:
        return []
    return [indent + "| " + line for line in inspect.cleandoc(text).splitlines()]


def member_lines(cls: type) -> List[str]:
    lines: List[str] = []
    for name in sorted(dir(cls)):
        if name.startswith("_") and name not in ("__init__", "__enter__", "__exit__",
                                                 "__aenter__", "__aexit__", "__iter__"):
            continue
        owner = next(c for c in cls.__mro__ if name in vars(c))
        if owner.__module__ in ("builtins", "typing"):
            continue  # dict's, object's, Exception's own members
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, property):
            lines.append(f"    property {name}")
            lines += doc(raw, "      ")
        elif isinstance(raw, (classmethod, staticmethod)):
            func = getattr(cls, name)
            kind = type(raw).__name__
            lines.append(f"    {kind} {name}{signature(func)}")
            lines += doc(func, "      ")
        elif callable(raw):
            func = getattr(cls, name)
            coro = "async " if inspect.iscoroutinefunction(func) or inspect.isasyncgenfunction(func) else ""
            lines.append(f"    {coro}def {name}{signature(func)}")
            lines += doc(func, "      ")
        else:
            lines.append(f"    attr {name} = {raw!r}"[:200])
    return lines


def dump() -> str:
    out: List[str] = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        out.append(f"module {module_name}")
        out += doc(module, "  ") if module_name != "mcp_sidecar" else []
        for name in sorted(names):
            obj = getattr(module, name)
            if isinstance(obj, type):
                bases = ", ".join(f"{b.__module__}.{b.__qualname__}" for b in obj.__mro__[1:])
                out.append(f"  class {name} [{obj.__module__}] mro: {bases}")
                out += doc(obj, "    ")
                out += member_lines(obj)
            elif callable(obj) and inspect.isfunction(obj):
                coro = "async " if inspect.iscoroutinefunction(obj) else ""
                out.append(f"  {coro}def {name}{signature(obj)}")
                out += doc(obj, "    ")
            else:
                out.append(f"  {name} = {obj!r}"[:300])
    return "\n".join(out) + "\n"


def main(argv: List[str]) -> int:
    text = dump()
    if "--write" in argv:
        with open(SNAPSHOT, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
