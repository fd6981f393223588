"""Host protocol v1 types: the shapes of params, results and notifications.

Owns: the protocol constants and :class:`Notification`. The result classes and TypedDicts are
generated from ``proto/schema/*.json`` into ``_generated.py`` (``clients/codegen/generate.py``) and
re-exported here. Per protocol §14, the sidecar may add fields at any time: code reading these
dicts must ignore keys it does not know.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, TypedDict

from ._generated import *  # noqa: F403 - the generated shapes, re-exported (their own __all__)
from ._generated import JsonObject

__all__ = [
    "PROTOCOL_VERSION",
    "Notification",
    "SERVERS_CHANGED",
    "TOOLS_CHANGED",
    "PROGRESS",
    "SERVER_LOG",
    "RESOURCES_UPDATED",
    "RESOURCES_CHANGED",
    "PROMPTS_CHANGED",
    "CANCELLED",
    "ROOTS_LIST_CHANGED",
    "SAMPLING",
    "ELICITATION",
    "ROOTS_LIST",
    "AUTHORIZE",
    "HOST_REQUEST_METHODS",
    "LogLevel",
    "ResourcesChangedParams",
    "PromptsChangedParams",
    "ElicitationMode",
]

#: The host protocol version this client speaks.
PROTOCOL_VERSION = 1

#: Method of the notification sent on every server state change.
SERVERS_CHANGED = "notifications/servers/changed"
#: Method of the notification sent whenever the exposed tool set changes.
TOOLS_CHANGED = "notifications/tools/changed"

#: Method of the latest progress of a ``tools/call`` made with a progress callback.
PROGRESS = "notifications/progress"
#: Method of a server's log message (params :class:`ServerLogParams`; also the log stream).
SERVER_LOG = "notifications/server/log"
#: Method of "a subscribed resource changed" (params :class:`ResourcesUpdatedParams`).
RESOURCES_UPDATED = "notifications/resources/updated"
#: Method of "a server's resource list changed" (params :class:`ResourcesChangedParams`).
RESOURCES_CHANGED = "notifications/resources/changed"
#: Method of "a server's prompt list changed" (params :class:`PromptsChangedParams`).
PROMPTS_CHANGED = "notifications/prompts/changed"
#: Method of a cancellation, both ways (protocol §5, §11, §17).
CANCELLED = "notifications/cancelled"
#: Method the host sends when its roots changed (protocol §5).
ROOTS_LIST_CHANGED = "notifications/roots/list_changed"

# The sidecar's requests to the host (protocol §17).
#: A server asks the host's model for a message (params :class:`SamplingParams`).
SAMPLING = "sampling/createMessage"
#: A server asks the user, in a form or by opening a URL.
ELICITATION = "elicitation/create"
#: A server asks which folders it may use (answer ``{"roots": [Root]}``).
ROOTS_LIST = "roots/list"
#: The sidecar asks the host to run the browser step of an OAuth login (params
#: :class:`AuthorizeParams`, answer :class:`AuthorizeResult`).
AUTHORIZE = "auth/authorize"
#: Every request method the sidecar may send the host.
HOST_REQUEST_METHODS = (SAMPLING, ELICITATION, ROOTS_LIST, AUTHORIZE)

#: Levels of server logs (``server_logs``, ``set_log_level``), least severe first.
LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
#: How an elicitation is answered: a form in the host, or a URL the host opens.
ElicitationMode = Literal["form", "url"]


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
