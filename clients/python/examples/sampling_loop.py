"""A server that asks the host's model (MCP sampling), answered through mcp-sidecar, offline.

An MCP server may send its client ``sampling/createMessage``: "run your model on these messages".
With mcp-sidecar in between, the request reaches the host as a request of the sidecar's own
(protocol §17). The host registers a handler before start — the client then declares
``sampling`` in ``initialize``, and the sidecar declares it to every server — and the handler's
answer goes back to the server unchanged.

Here a stand-in "model" (a plain function, no network) answers arithmetic questions; the fixture
server's ``ask`` tool (started with ``--client-requests``) sends the sampling request and returns
the model's answer as the tool's result, so the whole round trip shows:

    host → sidecar → server: tools/call ask
    server → sidecar → host: sampling/createMessage   (the handler runs the "model")
    host → sidecar → server: the model's message
    server → sidecar → host: the tool result, carrying that message

Run from a checkout (after ``cargo build --workspace``)::

    python3 clients/python/examples/sampling_loop.py

Binaries: ``MCP_SIDECAR_BIN`` (else the installed package's, else ``target/debug``) and
``MCP_FIXTURE_BIN`` (else ``target/debug/mcp-fixture``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
if importlib.util.find_spec("mcp_sidecar") is None:  # running from a checkout, not installed
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from mcp_sidecar import (  # noqa: E402
    SAMPLING,
    AsyncSidecar,
    HandlerError,
    SamplingParams,
    SidecarError,
    find_sidecar_bin,
)


def sidecar_binary() -> str:
    try:
        return find_sidecar_bin()
    except SidecarError:
        fallback = os.path.join(REPO, "target", "debug", "mcp-sidecar")
        if os.access(fallback, os.X_OK):
            return fallback
        raise


def fixture_binary() -> str:
    return os.environ.get("MCP_FIXTURE_BIN") or os.path.join(REPO, "target", "debug", "mcp-fixture")


def stand_in_model(messages: List[Dict[str, Any]], max_tokens: int) -> str:
    """A deterministic "model": multiplies the two numbers of the last user message."""
    question = messages[-1]["content"]["text"]
    numbers = [int(n) for n in re.findall(r"-?\d+", question)]
    if len(numbers) != 2:
        raise HandlerError(-1, f"the stand-in model only multiplies two numbers: {question!r}")
    return str(numbers[0] * numbers[1])[:max_tokens]


async def on_sampling(params: SamplingParams) -> Dict[str, Any]:
    """The host's sampling handler: the sidecar adds ``server``, the asking server's name."""
    print(f"server {params['server']} → host: {SAMPLING} {json.dumps(params['messages'])}")
    text = stand_in_model(params["messages"], params["maxTokens"])
    answer = {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "stand-in-multiplier",
        "stopReason": "endTurn",
    }
    print(f"host → server {params['server']}: {json.dumps(answer)}")
    return answer


async def main() -> List[Any]:
    sidecar = AsyncSidecar(sidecar_binary(), stderr=subprocess.DEVNULL)
    sidecar.on_request(SAMPLING, on_sampling)  # before start: initialize declares sampling
    answers = []
    async with sidecar:
        status = await sidecar.add_server(
            "calc", {"command": fixture_binary(), "args": ["--client-requests"]}
        )
        if status["state"] != "ready":
            raise SystemExit(f"the fixture server did not start: {status.get('lastError')}")
        for question in ("What is 6 times 7?", "And 12 times 12?", "What is love?"):
            ask = {
                "method": SAMPLING,
                "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
                    "maxTokens": 16,
                },
            }
            print(f"host → server calc: tools/call ask ({question!r})")
            result = await sidecar.call_tool("mcp__calc__ask", ask, timeout=60)
            outcome = result["structuredContent"]
            answers.append(outcome)
            if "result" in outcome:
                print(f"tool result ← the model said {outcome['result']['content']['text']!r}")
            else:
                print(f"tool result ← the host refused: {outcome['error']['message']}")
    return answers


if __name__ == "__main__":
    asyncio.run(main())
