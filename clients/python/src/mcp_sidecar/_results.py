"""The base of the typed results: a ``dict`` that also answers typed snake_case attributes.

Owns: :class:`Result`. Every result class of ``_generated.py`` (``ToolCallResult``,
``ServerStatus``, …) subclasses it, generated from ``proto/schema``: the object is the decoded
JSON dict itself (``r["isError"]``, ``json.dumps(r)``, ``r == {...}`` all as before) and each
protocol key is also an attribute in snake_case with its type (``r.is_error: bool``); an optional
key that is absent reads as None. Objects of a result type inside a result (``r.truncated``,
``tools[0]``) are converted with it, so both spellings reach the same object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Dict, Tuple, Type, TypeVar

__all__ = ["Result", "shape"]

R = TypeVar("R", bound="Result")


class Result(Dict[str, Any]):
    """A protocol object: the JSON dict, plus its keys as typed snake_case attributes."""

    __slots__ = ()
    #: attribute → protocol key (generated per class).
    _keys: ClassVar[Dict[str, str]] = {}
    #: protocol key → (class of its object, whether it is a list of them) (generated).
    _nested: ClassVar[Dict[str, Tuple[Type[Result], bool]]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        dict.__init__(self, *args, **kwargs)
        for key, (cls, many) in self._nested.items():
            value = self.get(key)
            if many and isinstance(value, list):
                self[key] = [cls(v) if isinstance(v, dict) else v for v in value]
            elif isinstance(value, dict):
                self[key] = cls(value)

    if not TYPE_CHECKING:  # type checkers see only the generated attributes

        def __getattr__(self, name: str) -> Any:
            key = self._keys.get(name)
            if key is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return self.get(key)


def shape(cls: Type[R], result: Any) -> R:
    """``result`` as a ``cls`` (left as it is if the sidecar sent no object)."""
    return cls(result) if isinstance(result, dict) else result
