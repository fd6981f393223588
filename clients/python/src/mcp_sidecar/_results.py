"""The base of the typed results: a ``dict`` that also answers typed snake_case attributes.

Owns: :class:`Result`. Every result class of ``_generated.py`` (``ToolCallResult``,
``ServerStatus``, …) subclasses it, generated from ``proto/schema``: the object is the decoded
JSON dict itself (``r["isError"]``, ``json.dumps(r)``, ``r == {...}`` all as before) and each
protocol key is also an attribute in snake_case with its type (``r.is_error: bool``); an optional
key that is absent reads as None. Objects of a result type inside a result (``r.truncated``,
``r.tools[0]``) are converted when first reached through their attribute, and kept in place.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Sequence, Tuple, Type, TypeVar

__all__ = ["Result", "shape", "install"]

R = TypeVar("R", bound="Result")


class Result(Dict[str, Any]):
    """A protocol object: the JSON dict, plus its keys as typed snake_case attributes."""

    __slots__ = ()
    #: attribute → protocol key (generated per class).
    _keys: ClassVar[Dict[str, str]] = {}
    #: protocol key → (class of its object, whether it is a list of them) (generated).
    _nested: ClassVar[Dict[str, Tuple[Type[Result], bool]]] = {}

    if not TYPE_CHECKING:  # type checkers see only the generated attributes

        def __getattr__(self, name: str) -> Any:
            key = self._keys.get(name)
            if key is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            value = self.get(key)
            nested = self._nested.get(key)
            if nested is None or value is None:
                return value
            # An object of a result type inside: converted on first reach and kept in place, so
            # r.tools[0] and r["tools"][0] are then one object (the hot path never pays for it).
            cls, many = nested
            if not many and type(value) is dict:
                value = self[key] = cls(value)
            elif many and type(value) is list and any(type(v) is dict for v in value):
                value = self[key] = [cls(v) if type(v) is dict else v for v in value]
            return value


def shape(cls: Type[R], result: Any) -> R:
    """``result`` as a ``cls`` (left as it is if the sidecar sent no object)."""
    return cls(result) if type(result) is dict else result


_shape = shape


def _names(servers: Sequence[str]) -> List[str]:
    """A ``servers`` argument as sent (a lone string is a mistake, not a list of letters)."""
    if isinstance(servers, str):
        raise TypeError("servers must be a sequence of server names, not one string")
    return list(servers)


def _on(client: Any, method: str, callback: Callable[[Any], Any]) -> Callable[[], None]:
    """Register ``callback`` for the params of ``method``'s notifications only."""

    def deliver(notification: Any) -> Any:
        return callback(notification.params) if notification.method == method else None

    unregister: Callable[[], None] = client.on_notification(deliver)
    return unregister


def install(cls: Type[Any], methods: Type[Any]) -> None:
    """Copy the generated host methods (``_methods._SidecarMethods``…) and class docstring into
    ``cls``, as its own (named ``Sidecar.ping``, of its module), so that the class has no
    generated base."""
    cls.__doc__ = methods.__doc__
    for name, member in vars(methods).items():
        function = member.fget if isinstance(member, property) else member
        if isinstance(function, types.FunctionType):
            function.__qualname__ = f"{cls.__name__}.{name}"
            function.__module__ = cls.__module__
            setattr(cls, name, member)
