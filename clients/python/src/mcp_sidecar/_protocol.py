"""Host protocol v1 types: the shapes of params, results and notifications.

Owns: the protocol version and :class:`Notification`. The result classes, TypedDicts, method
names and Literals are generated from ``proto/schema/*.json`` into ``_generated.py``
(``clients/codegen/generate.py``) and re-exported here. Per protocol §14, the sidecar may add
fields at any time: code reading these dicts must ignore keys it does not know.
"""

from __future__ import annotations

from typing import NamedTuple, TypedDict

from ._generated import *  # noqa: F403 - the generated shapes, re-exported (their own __all__)
from ._generated import JsonObject

__all__ = ["PROTOCOL_VERSION", "Notification", "ResourcesChangedParams", "PromptsChangedParams"]

#: The host protocol version this client speaks.
PROTOCOL_VERSION = 1


# Not generated (the schemas have no message of their own for these two): defined here by hand.
class ResourcesChangedParams(TypedDict):
    """Params of ``notifications/resources/changed``: the server's resource list changed."""

    server: str


class PromptsChangedParams(TypedDict):
    """Params of ``notifications/prompts/changed``: the server's prompt list changed."""

    server: str


class Notification(NamedTuple):
    """A notification from the sidecar: ``method`` and its ``params`` (``{}`` when absent).

    Known methods are :data:`SERVERS_CHANGED` (params: :class:`ServersChangedParams`) and
    :data:`TOOLS_CHANGED` (params: :class:`ToolsChangedParams`); others are delivered as they
    come (protocol §14: new notifications may appear in version 1).
    """

    method: str
    params: JsonObject
