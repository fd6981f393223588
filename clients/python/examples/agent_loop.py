"""An agent loop over mcp-sidecar, runnable offline: a scripted fake model stands in for the LLM.

The loop is the one a real backend runs with OpenAI's Chat Completions API:

1. list the tools in OpenAI format (``tools/list``) and hand their definitions to the model;
2. the model answers with ``tool_calls``; each is executed through the sidecar (``tools/call``);
3. each result's ``output`` (already a string in the OpenAI format) goes back as a ``tool``
   message, a failure as an error text the model can read;
4. repeat until the model answers without tool calls.

The fake model is deterministic: it only ever picks tools it was given (by their exposed names),
so the transcript shows the real definitions and the real results from the fixture server.

Run from a checkout (after ``cargo build --workspace``)::

    python3 clients/python/examples/agent_loop.py

Binaries: ``MCP_SIDECAR_BIN`` (else the installed package's, else ``target/debug``) and
``MCP_FIXTURE_BIN`` (else ``target/debug/mcp-fixture``).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
if importlib.util.find_spec("mcp_sidecar") is None:  # running from a checkout, not installed
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from mcp_sidecar import AsyncSidecar, SidecarError, find_sidecar_bin  # noqa: E402

Message = Dict[str, Any]


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


class ScriptedModel:
    """A deterministic stand-in for a chat model with tool calling (OpenAI message shapes)."""

    def __init__(self) -> None:
        self.turn = 0

    def complete(self, messages: List[Message], tools: List[Dict[str, Any]]) -> Message:
        names = [t["function"]["name"] for t in tools]
        echo = next(n for n in names if n.endswith("__echo"))
        self.turn += 1
        if self.turn == 1:  # use a tool to answer the user
            question = messages[-1]["content"]
            quoted = question.split("'")[1]
            return self._call(echo, {"message": quoted})
        if self.turn == 2:  # a mistaken call: the sidecar validates arguments against the schema
            return self._call(echo, {"text": "wrong field"})
        last = messages[-1]["content"]
        first_result = next(m for m in messages if m["role"] == "tool")["content"]
        return {
            "role": "assistant",
            "content": f"You said {first_result!r}; it has {len(first_result)} characters. "
            f"(My second call failed and I was told why: {last.splitlines()[0]})",
        }

    def _call(self, name: str, arguments: Dict[str, Any]) -> Message:
        call_id = f"call_{self.turn}"
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }


async def run_tool(sidecar: AsyncSidecar, call: Dict[str, Any]) -> str:
    """Execute one tool call; the text that goes back to the model."""
    try:
        arguments = json.loads(call["function"]["arguments"] or "{}")
        result = await sidecar.call_tool(call["function"]["name"], arguments, timeout=60)
    except SidecarError as exc:  # unknown tool, invalid arguments, server down, timeout...
        return f"error {exc.code}: {exc.message}"
    output = result["output"]  # a string in the session's OpenAI format
    text = output if isinstance(output, str) else json.dumps(output)
    return f"error: {text}" if result["isError"] else text


async def agent(question: str, max_turns: int = 8) -> List[Message]:
    async with AsyncSidecar(sidecar_binary(), tool_format="openai", stderr=subprocess.DEVNULL) as sidecar:
        status = await sidecar.add_server("fixture", {"command": fixture_binary()})
        if status["state"] != "ready":
            raise SystemExit(f"the fixture server did not start: {status.get('lastError')}")
        listing = await sidecar.list_tools()
        tools = [entry["definition"] for entry in listing["tools"]]
        print(f"# {len(tools)} tools, fingerprint {listing['fingerprint'][:23]}…")
        model = ScriptedModel()
        messages: List[Message] = [
            {"role": "system", "content": "You are a helpful agent. Use tools when useful."},
            {"role": "user", "content": question},
        ]
        for _ in range(max_turns):
            reply = model.complete(messages, tools)
            messages.append(reply)
            calls: Optional[List[Dict[str, Any]]] = reply.get("tool_calls")
            if not calls:
                break
            results = await asyncio.gather(*(run_tool(sidecar, c) for c in calls))
            for call, content in zip(calls, results):
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})
        return messages


def show(messages: List[Message]) -> None:
    for m in messages:
        if m["role"] == "assistant" and m.get("tool_calls"):
            for call in m["tool_calls"]:
                fn = call["function"]
                print(f"assistant → {fn['name']}({fn['arguments']})  [{call['id']}]")
        elif m["role"] == "tool":
            print(f"tool [{m['tool_call_id']}] → {m['content']}")
        else:
            print(f"{m['role']}: {m['content']}")


def main() -> None:
    show(asyncio.run(agent("Please repeat 'hello from the agent' and count its characters.")))


if __name__ == "__main__":
    main()
