"""Framework adapters against each framework's own MCP client, on the same 5 stdio servers from
the registries (server-filesystem, server-memory, server-everything from npm; mcp-server-time,
mcp-server-git from PyPI). Not run in CI: it needs a scratch directory with those servers and
the frameworks (see clients/python/README.md, *Framework adapters: benchmark*).

Per framework (OpenAI Agents, LangChain, Pydantic AI) and client (the framework's native MCP
client, or the sidecar adapter), one fresh agent process runs a real agent loop with the
framework's scripted model and reports:

- **start → tools**: from building the client to the model's first request, which carries every
  tool of the 5 servers (so: spawning, initializing and listing all of them);
- **calls/s**: ``--calls`` sequential calls of server-everything's ``echo`` made by the agent
  loop (the model asks, the framework calls the tool, the result goes back), over the time between
  the model's first and last requests;
- **left after kill -9**: the agent process is killed with SIGKILL while it holds its servers;
  the processes it had started (its whole descendant tree, taken just before) that are still
  running after ``--grace`` seconds.

The pairs alternate in each round (native first in odd rounds, the adapter first in even ones),
so a machine loaded by other work slows both alike; figures are medians over ``--rounds``.

    venv/bin/python clients/python/bench/adapters.py --scratch DIR [--rounds 3] [--calls 100]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT_SRC = os.path.join(os.path.dirname(HERE), "src")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FRAMEWORKS = ("openai-agents", "langchain", "pydantic-ai")
ECHO = "echo"  # server-everything's
SIDECAR_ECHO = "mcp__everything__echo"


def servers(scratch: str) -> Dict[str, Dict[str, Any]]:
    """The 5 servers, as stdio commands (the same for every client)."""
    npm = os.path.join(scratch, "node_modules", "@modelcontextprotocol")
    data = os.path.join(scratch, "data")
    return {
        "filesystem": {
            "command": "node",
            "args": [os.path.join(npm, "server-filesystem/dist/index.js"), os.path.join(data, "files")],
        },
        "memory": {
            "command": "node",
            "args": [os.path.join(npm, "server-memory/dist/index.js")],
            "env": {"MEMORY_FILE_PATH": os.path.join(data, "memory.jsonl")},
        },
        "everything": {
            "command": "node",
            "args": [os.path.join(npm, "server-everything/dist/index.js"), "stdio"],
        },
        "time": {
            "command": os.path.join(scratch, "servers/bin/mcp-server-time"),
            "args": ["--local-timezone", "UTC"],
        },
        "git": {
            "command": os.path.join(scratch, "servers/bin/mcp-server-git"),
            "args": ["--repository", os.path.join(data, "repo")],
        },
    }


def prepare_data(scratch: str) -> None:
    data = os.path.join(scratch, "data")
    os.makedirs(os.path.join(data, "files"), exist_ok=True)
    with open(os.path.join(data, "files", "a.txt"), "w") as f:
        f.write("hello\n")
    repo = os.path.join(data, "repo")
    if not os.path.isdir(os.path.join(repo, ".git")):
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(
            ["git", "-C", repo, "-c", "user.email=bench@localhost", "-c", "user.name=bench",
             "commit", "-q", "--allow-empty", "-m", "init"],
            check=True,
        )


# -- the agent process ----------------------------------------------------------------------


class Clock:
    """When the scripted model was asked: the first request (with its tool count) and the last."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.first: Optional[float] = None
        self.last: Optional[float] = None
        self.tools = 0

    def asked(self, tools: int) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first, self.tools = now, tools
        self.last = now


def _native_env(config: Dict[str, Any]) -> Dict[str, str]:
    # Native stdio clients pass only a few variables by default; node needs PATH to be found.
    return {**{k: os.environ[k] for k in ("PATH", "HOME") if k in os.environ}, **config.get("env", {})}


async def run_openai_agents(mode: str, cfg: Dict[str, Any], calls: int, sidecar: str, clock: Clock, ready: Callable[[], Any]) -> None:
    from agents import Agent, Runner
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    name = SIDECAR_ECHO if mode == "adapter" else ECHO

    def step(i: int) -> Any:
        def respond(call: Any) -> Any:
            clock.asked(len(call.tools))
            if i < calls:
                return [function_call(name, {"message": f"m{i}"}, call_id=f"c{i}")]
            return [assistant_message("done")]

        return ModelStep.respond(respond)

    model = ScriptedModel([step(i) for i in range(calls + 1)])
    async with contextlib.AsyncExitStack() as stack:
        if mode == "adapter":
            from mcp_sidecar.adapters.openai_agents import SidecarMCPServer

            mcp_servers: List[Any] = [
                await stack.enter_async_context(
                    SidecarMCPServer(cfg, sidecar_options={"binary": sidecar, "stderr": subprocess.DEVNULL})
                )
            ]
        else:
            from agents.mcp import MCPServerStdio

            mcp_servers = [
                await stack.enter_async_context(
                    MCPServerStdio(
                        {"command": c["command"], "args": c["args"], "env": _native_env(c)},
                        name=n,
                        client_session_timeout_seconds=60,
                    )
                )
                for n, c in cfg.items()
            ]
        agent = Agent(name="bench", model=model, mcp_servers=mcp_servers)
        result = await Runner.run(agent, "go", max_turns=calls + 5)
        assert result.final_output == "done"
        await ready()


async def run_langchain(mode: str, cfg: Dict[str, Any], calls: int, sidecar: str, clock: Clock, ready: Callable[[], Any]) -> None:
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    name = SIDECAR_ECHO if mode == "adapter" else ECHO

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            clock.tools = clock.tools or len(tools)
            return self

        async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
            clock.asked(clock.tools)
            return await super()._agenerate(*args, **kwargs)

    replies = [
        AIMessage(content="", tool_calls=[{"name": name, "args": {"message": f"m{i}"}, "id": f"c{i}"}])
        for i in range(calls)
    ] + [AIMessage(content="done")]
    model = Scripted(messages=iter(replies), disable_streaming=True)
    config = {"recursion_limit": 2 * calls + 10}
    if mode == "adapter":
        from mcp_sidecar.adapters.langchain import SidecarMCPClient

        async with SidecarMCPClient(cfg, sidecar_options={"binary": sidecar, "stderr": subprocess.DEVNULL}) as client:
            agent = create_agent(model, await client.get_tools())
            state = await agent.ainvoke({"messages": [("user", "go")]}, config)
            assert state["messages"][-1].content == "done"
            await ready()
    else:
        from langchain_mcp_adapters.client import MultiServerMCPClient

        client = MultiServerMCPClient(
            {n: {"transport": "stdio", "command": c["command"], "args": c["args"], "env": _native_env(c)} for n, c in cfg.items()}
        )
        agent = create_agent(model, await client.get_tools())
        state = await agent.ainvoke({"messages": [("user", "go")]}, config)
        assert state["messages"][-1].content == "done"
        await ready()


async def run_pydantic_ai(mode: str, cfg: Dict[str, Any], calls: int, sidecar: str, clock: Clock, ready: Callable[[], Any]) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    name = SIDECAR_ECHO if mode == "adapter" else ECHO
    count = [0]

    def respond(messages: Any, info: Any) -> ModelResponse:
        clock.asked(len(info.function_tools))
        i = count[0]
        count[0] += 1
        if i < calls:
            return ModelResponse(parts=[ToolCallPart(tool_name=name, args={"message": f"m{i}"}, tool_call_id=f"c{i}")])
        return ModelResponse(parts=[TextPart(content="done")])

    if mode == "adapter":
        from mcp_sidecar.adapters.pydantic_ai import SidecarToolset

        toolsets: List[Any] = [SidecarToolset(cfg, sidecar_options={"binary": sidecar, "stderr": subprocess.DEVNULL})]
    else:
        from fastmcp.client.transports import StdioTransport
        from pydantic_ai.mcp import MCPToolset

        toolsets = [
            MCPToolset(StdioTransport(command=c["command"], args=c["args"], env=_native_env(c)), id=n)
            for n, c in cfg.items()
        ]
    from pydantic_ai.usage import UsageLimits

    agent = Agent(FunctionModel(respond), toolsets=toolsets)
    async with agent:
        result = await agent.run("go", usage_limits=UsageLimits(request_limit=calls + 5))
        assert result.output == "done"
        await ready()


RUNNERS = {"openai-agents": run_openai_agents, "langchain": run_langchain, "pydantic-ai": run_pydantic_ai}


def child(framework: str, mode: str, scratch: str, calls: int, sidecar: str) -> None:
    """The agent process: runs the loop, prints its figures, then waits to be killed."""
    sys.path.insert(0, CLIENT_SRC)
    cfg = servers(scratch)
    clock = Clock()

    async def ready() -> None:
        assert clock.first is not None and clock.last is not None
        figures = {
            "start_to_tools_ms": (clock.first - clock.start) * 1000,
            "tools": clock.tools,
            "calls_per_s": calls / (clock.last - clock.first),
        }
        sys.stdout.write(json.dumps(figures) + "\n")
        sys.stdout.flush()
        await asyncio.Event().wait()  # holding the servers until SIGKILL

    asyncio.run(RUNNERS[framework](mode, cfg, calls, sidecar, clock, ready))


# -- the driver -----------------------------------------------------------------------------


def descendants(pid: int) -> List[int]:
    children: Dict[int, List[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out: List[int] = []
    stack = [pid]
    while stack:
        for c in children.get(stack.pop(), []):
            out.append(c)
            stack.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def measure(framework: str, mode: str, args: argparse.Namespace) -> Dict[str, Any]:
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--child", framework, mode,
         "--scratch", args.scratch, "--calls", str(args.calls), "--sidecar", args.sidecar],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(60)
        raise SystemExit(f"{framework} {mode}: the agent process exited ({proc.returncode}) without figures")
    figures: Dict[str, Any] = json.loads(line)
    tree = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + args.grace
    while time.monotonic() < deadline and any(alive(p) for p in tree):
        time.sleep(0.05)
    left = [p for p in tree if alive(p)]
    figures["processes"] = len(tree)
    figures["left"] = len(left)
    for p in left:  # the benchmark cleans up what the agent left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", required=True, help="where the servers and data are")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--grace", type=float, default=5.0, help="seconds for orphans to exit after kill -9")
    parser.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    default_bin = os.path.join(REPO, "target", "release", "mcp-sidecar")
    if not os.path.exists(default_bin):
        default_bin = os.path.join(REPO, "target", "debug", "mcp-sidecar")
    parser.add_argument("--sidecar", default=os.environ.get("MCP_SIDECAR_BIN", default_bin))
    parser.add_argument("--child", nargs=2, metavar=("FRAMEWORK", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.scratch = os.path.abspath(args.scratch)
    if args.child:
        child(args.child[0], args.child[1], args.scratch, args.calls, args.sidecar)
        return
    prepare_data(args.scratch)
    frameworks = args.frameworks.split(",")
    results: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    for r in range(args.rounds):
        for framework in frameworks:
            order = ("native", "adapter") if r % 2 == 0 else ("adapter", "native")
            for mode in order:
                figures = measure(framework, mode, args)
                results.setdefault((framework, mode), []).append(figures)
                print(f"round {r + 1} {framework:13} {mode:7} {json.dumps(figures)}", file=sys.stderr)
    print(
        f"{args.rounds} alternated rounds, {args.calls} calls each, medians; {os.cpu_count()} CPUs; "
        f"Python {sys.version.split()[0]}; sidecar {os.path.relpath(args.sidecar, REPO)}"
    )
    print("| framework | client | tools | start → tools ms | calls/s | processes | left after kill -9 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for framework in frameworks:
        row: Dict[str, Dict[str, float]] = {}
        for mode in ("native", "adapter"):
            runs = results[(framework, mode)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            row[mode] = med
            label = "native MCP client" if mode == "native" else "mcp-sidecar adapter"
            print(
                f"| {framework} | {label} | {med['tools']:.0f} | {med['start_to_tools_ms']:,.0f} | "
                f"{med['calls_per_s']:,.1f} | {med['processes']:.0f} | {max(r['left'] for r in runs)} |"
            )
        n, a = row["native"], row["adapter"]
        print(
            f"| {framework} | adapter ÷ native | | {a['start_to_tools_ms'] / n['start_to_tools_ms']:.2f}× | "
            f"{a['calls_per_s'] / n['calls_per_s']:.2f}× | | |"
        )


if __name__ == "__main__":
    main()
