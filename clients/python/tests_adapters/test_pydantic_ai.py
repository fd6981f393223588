"""The Pydantic AI adapter in a real ``Agent.run`` loop with Pydantic AI's ``FunctionModel``: the
model asks for a tool, the sidecar calls the fixture, the tool return reaches the model as
Pydantic AI shapes it, the run ends with the final answer."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from common import (
    ASK,
    ECHO,
    FAIL,
    IMAGE,
    PNG_B64,
    PROGRESS,
    SAMPLING_ASK,
    SERVERS,
    SIDECAR_OPTIONS,
    Blocker,
    cancel_run_at_server,
)
from mcp_sidecar import SidecarError
from mcp_sidecar.adapters.pydantic_ai import SidecarToolset

Seen = List[List[ModelMessage]]


def _script(seen: Seen, *steps: ModelResponse) -> FunctionModel:
    """A FunctionModel that records what it is sent and answers the scripted responses in turn."""
    replies = list(steps)

    def respond(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return replies.pop(0)

    return FunctionModel(respond)


def _call(name: str, args: Any) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(tool_name=name, args=args, tool_call_id="c1")])


def _text(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(content=text)])


def _toolset(**kwargs: Any) -> SidecarToolset:
    return SidecarToolset(SERVERS, sidecar_options=SIDECAR_OPTIONS, **kwargs)


def _parts(seen: Seen, kind: type) -> List[Any]:
    last = seen[-1][-1]
    assert isinstance(last, ModelRequest)
    return [p for p in last.parts if isinstance(p, kind)]


def test_a_tool_call_reaches_the_model_and_the_run_ends() -> None:
    async def main() -> None:
        seen: Seen = []
        toolset = _toolset()
        agent = Agent(_script(seen, _call(ECHO, {"message": "hello sidecar"}), _text("done")), toolsets=[toolset])
        result = await agent.run("echo something")
        (ret,) = _parts(seen, ToolReturnPart)
        assert ret.tool_call_id == "c1"
        # Structured content that the text only repeats is what the model gets, as MCPToolset does.
        assert ret.content == {"length": 13, "message": "hello sidecar"}
        assert result.output == "done"
        assert toolset.sidecar is None  # the run's exit stopped it

    asyncio.run(main())


def test_an_image_result_reaches_the_model_as_binary_content() -> None:
    async def main() -> None:
        seen: Seen = []
        agent = Agent(_script(seen, _call(IMAGE, {}), _text("a pixel")), toolsets=[_toolset()])
        result = await agent.run("show me")
        files = [
            c
            for p in _parts(seen, UserPromptPart)
            for c in (p.content if isinstance(p.content, list) else [p.content])
            if isinstance(c, BinaryContent)
        ] + [
            c
            for p in _parts(seen, ToolReturnPart)
            for c in (p.content if isinstance(p.content, list) else [p.content])
            if isinstance(c, BinaryContent)
        ]
        assert files and files[0].media_type == "image/png" and files[0].base64 == PNG_B64
        assert result.output == "a pixel"

    asyncio.run(main())


def test_a_tool_error_asks_the_model_to_retry() -> None:
    async def main() -> None:
        seen: Seen = []
        agent = Agent(_script(seen, _call(FAIL, {"message": "disk on fire"}), _text("it failed")), toolsets=[_toolset()])
        result = await agent.run("try")
        (retry,) = _parts(seen, ToolReturnPart)
        assert retry.outcome == "retried" and retry.content == "disk on fire"
        assert result.output == "it failed"

    asyncio.run(main())


def test_a_sidecar_refusal_asks_the_model_to_retry_with_its_code() -> None:
    async def main() -> None:
        seen: Seen = []
        agent = Agent(_script(seen, _call(ECHO, {"message": 42}), _text("bad args")), toolsets=[_toolset()])
        await agent.run("try")
        (retry,) = _parts(seen, ToolReturnPart)
        assert retry.outcome == "retried" and str(retry.content).startswith("INVALID_ARGUMENTS: ")

    asyncio.run(main())


def test_tool_error_behavior_error_ends_the_run() -> None:
    async def main() -> None:
        seen: Seen = []
        agent = Agent(_script(seen, _call(FAIL, {"message": "disk on fire"})), toolsets=[_toolset(tool_error_behavior="error")])
        with pytest.raises(SidecarError, match="disk on fire") as info:
            await agent.run("try")
        assert info.value.code == "UPSTREAM_ERROR"

    asyncio.run(main())


def test_cancelling_the_run_cancels_the_call_at_the_server() -> None:
    async def main() -> None:
        blocker = Blocker()
        toolset = _toolset(sampling=blocker)
        agent = Agent(_script([], _call(ASK, SAMPLING_ASK)), toolsets=[toolset])
        async with agent:  # keeps the sidecar up after the cancelled run
            run = asyncio.ensure_future(agent.run("go"))
            await cancel_run_at_server(run, blocker)
            assert toolset.sidecar is not None
            again = await toolset.sidecar.call_tool(ECHO, {"message": "still here"})
            assert again["text"] == "still here"

    asyncio.run(main())


def test_a_server_sampling_request_is_answered_by_a_pydantic_ai_model() -> None:
    async def main() -> None:
        sampled: Seen = []
        seen: Seen = []
        toolset = _toolset(sampling_model=_script(sampled, _text("teal")))
        agent = Agent(_script(seen, _call(ASK, SAMPLING_ASK), _text("it said teal")), toolsets=[toolset])
        result = await agent.run("ask the server")
        assert "Name a colour." in str(sampled[0])
        (ret,) = _parts(seen, ToolReturnPart)
        # The fixture answers {"result": <the sampling result>}; a lone "result" key is unwrapped.
        assert ret.content["content"]["text"] == "teal"
        assert result.output == "it said teal"

    asyncio.run(main())


def test_progress_reaches_the_callback() -> None:
    async def main() -> None:
        got: List[Any] = []
        agent = Agent(_script([], _call(PROGRESS, {"steps": 3}), _text("ok")), toolsets=[_toolset(on_progress=got.append)])
        await agent.run("go")
        assert got and got[-1]["progress"] == 3 and got[-1]["total"] == 3

    asyncio.run(main())


def test_one_sidecar_for_every_run_inside_async_with_agent() -> None:
    async def main() -> None:
        toolset = _toolset()
        steps: List[ModelResponse] = []
        for i in range(3):
            steps += [_call(ECHO, {"message": f"m{i}"}), _text(f"r{i}")]
        agent = Agent(_script([], *steps), toolsets=[toolset])
        async with agent:
            first = toolset.sidecar
            assert first is not None
            for i in range(3):
                assert (await agent.run("go")).output == f"r{i}"
                assert toolset.sidecar is first
            stats = (await first.server_stats())["servers"][0]
            assert stats["total"]["calls"] == 3 and stats["restarts"] == 0
        assert toolset.sidecar is None

    asyncio.run(main())


def test_unexpected_model_behavior_is_the_frameworks() -> None:
    """A model that keeps calling a failing tool ends the run the way Pydantic AI ends it."""

    async def main() -> None:
        steps = [_call(FAIL, {"message": "again"}) for _ in range(3)]
        agent = Agent(_script([], *steps), toolsets=[_toolset(max_retries=1)])
        with pytest.raises(UnexpectedModelBehavior):
            await agent.run("try")

    asyncio.run(main())
