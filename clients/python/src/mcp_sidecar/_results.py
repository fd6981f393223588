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

    @classmethod
    def of(cls: Type[R], data: Dict[str, Any]) -> R:
        """``data`` (a decoded object) as this class, the objects of result types inside it
        converted too. Constructing the class directly (``ToolEntry({...})``) converts nothing:
        ``dict``'s own constructor, kept fast for the clients' hot path."""
        result = cls(data)
        if not cls._nested:
            return result
        for key, (inner, many) in cls._nested.items():
            value = result.get(key)
            if many and type(value) is list:
                result[key] = [inner.of(v) if type(v) is dict else v for v in value]
            elif type(value) is dict:
                result[key] = inner.of(value)
        return result

    if not TYPE_CHECKING:  # type checkers see only the generated attributes

        def __getattr__(self, name: str) -> Any:
            key = self._keys.get(name)
            if key is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            return self.get(key)


def shape(cls: Type[R], result: Any) -> R:
    """``result`` as a ``cls`` (left as it is if the sidecar sent no object)."""
    return cls.of(result) if type(result) is dict else result
