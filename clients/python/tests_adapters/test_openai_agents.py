"""The OpenAI Agents SDK adapter in a real ``Runner.run`` loop with the SDK's ``ScriptedModel``:
the model asks for a tool, the sidecar calls the fixture, the result reaches the model as the SDK
shapes it, the run ends with the final answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any, List

import pytest
from agents import Agent, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

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
from mcp_sidecar.adapters.openai_agents import SidecarMCPServer, agents_sampler


def _tool_outputs(model: ScriptedModel, call: int) -> List[Any]:
    """The function_call_output items the model received in its ``call``-th request."""
    items = model.calls[call].input
    assert isinstance(items, list)
    return [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _server(**kwargs: Any) -> SidecarMCPServer:
    return SidecarMCPServer(SERVERS, sidecar_options=SIDECAR_OPTIONS, **kwargs)


def test_a_tool_call_reaches_the_model_and_the_run_ends() -> None:
    async def main() -> None:
        model = ScriptedModel(
            [
                [function_call(ECHO, {"message": "hello sidecar"}, call_id="c1")],
                [assistant_message("done: hello sidecar")],
            ]
        )
        async with _server() as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "echo something")
            names = [t.name for t in model.calls[0].tools]
            assert ECHO in names and IMAGE in names
            outputs = _tool_outputs(model, 1)
            assert len(outputs) == 1 and outputs[0]["call_id"] == "c1"
            assert "hello sidecar" in json.dumps(outputs[0]["output"])
            assert result.final_output == "done: hello sidecar"
            model.assert_complete()

    asyncio.run(main())


def test_an_image_result_reaches_the_model_as_a_data_url() -> None:
    async def main() -> None:
        model = ScriptedModel(
            [[function_call(IMAGE, {}, call_id="c1")], [assistant_message("a pixel")]]
        )
        async with _server() as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "show me")
            output = json.dumps(_tool_outputs(model, 1)[0]["output"])
            assert f"data:image/png;base64,{PNG_B64}" in output
            assert "a 1x1 png" in output
            assert result.final_output == "a pixel"

    asyncio.run(main())


def test_a_tool_error_reaches_the_model_as_its_output() -> None:
    async def main() -> None:
        model = ScriptedModel(
            [
                [function_call(FAIL, {"message": "disk on fire"}, call_id="c1")],
                [assistant_message("the tool failed")],
            ]
        )
        async with _server() as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "try it")
            assert "disk on fire" in json.dumps(_tool_outputs(model, 1)[0]["output"])
            assert result.final_output == "the tool failed"

    asyncio.run(main())


def test_a_sidecar_error_takes_the_sdks_failure_path() -> None:
    """A call the sidecar refuses (here INVALID_ARGUMENTS) is an MCP error to the SDK: its
    failure_error_function answers the model (default), or the run raises (None)."""

    async def main() -> None:
        model = ScriptedModel(
            [
                [function_call(ECHO, {"message": 42}, call_id="c1")],
                [assistant_message("bad arguments")],
            ]
        )
        async with _server() as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "try it")
            assert "error occurred" in json.dumps(_tool_outputs(model, 1)[0]["output"])
            assert result.final_output == "bad arguments"
        model = ScriptedModel([[function_call(ECHO, {"message": 42}, call_id="c1")]])
        async with _server(failure_error_function=None) as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            with pytest.raises(Exception, match="INVALID_ARGUMENTS"):
                await Runner.run(agent, "try it")

    asyncio.run(main())


def test_cancelling_the_run_cancels_the_call_at_the_server() -> None:
    async def main() -> None:
        blocker = Blocker()
        model = ScriptedModel([[function_call(ASK, SAMPLING_ASK, call_id="c1")]])
        async with _server(sampling=blocker) as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            run = asyncio.ensure_future(Runner.run(agent, "go"))
            await cancel_run_at_server(run, blocker)
            # The sidecar and the server keep serving after the cancelled call.
            assert server.sidecar is not None
            again = await server.sidecar.call_tool(ECHO, {"message": "still here"})
            assert again["text"] == "still here"

    asyncio.run(main())


def test_a_server_sampling_request_is_answered_by_an_agents_model() -> None:
    async def main() -> None:
        sampler = ScriptedModel([[assistant_message("teal")]])
        model = ScriptedModel(
            [[function_call(ASK, SAMPLING_ASK, call_id="c1")], [assistant_message("it said teal")]]
        )
        async with _server(sampling=agents_sampler(sampler)) as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            result = await Runner.run(agent, "ask the server")
            assert "Name a colour." in json.dumps(sampler.calls[0].input)
            output = json.dumps(_tool_outputs(model, 1)[0]["output"])
            assert "teal" in output
            assert result.final_output == "it said teal"

    asyncio.run(main())


def test_progress_reaches_the_callback() -> None:
    async def main() -> None:
        seen: List[Any] = []
        model = ScriptedModel(
            [[function_call(PROGRESS, {"steps": 3}, call_id="c1")], [assistant_message("ok")]]
        )
        async with _server(on_progress=seen.append) as server:
            agent = Agent(name="a", model=model, mcp_servers=[server])
            await Runner.run(agent, "go")
        assert seen and seen[-1]["progress"] == 3 and seen[-1]["total"] == 3

    asyncio.run(main())


def test_prompts_and_resources_of_every_server() -> None:
    async def main() -> None:
        async with _server() as server:
            prompts = await server.list_prompts()
            assert "greet" in [p.name for p in prompts.prompts]
            got = await server.get_prompt("greet", {"name": "Ada"})
            assert "Ada" in json.dumps(got.model_dump(mode="json"))
            resources = await server.list_resources()
            assert "fixture://text/readme" in [str(r.uri) for r in resources.resources]
            read = await server.read_resource("fixture://text/readme")
            assert read.contents
            with pytest.raises(ValueError, match="no server has the prompt 'nope'"):
                await server.get_prompt("nope")

    asyncio.run(main())


def test_a_server_that_fails_to_start_is_named() -> None:
    async def main() -> None:
        server = SidecarMCPServer(
            {"broken": {"command": "/nonexistent/mcp-server"}}, sidecar_options=SIDECAR_OPTIONS
        )
        with pytest.raises(Exception) as info:
            await server.connect()
        assert getattr(info.value, "code", None) == "SERVER_UNAVAILABLE"
        assert "'broken'" in str(info.value)
        await server.cleanup()

    asyncio.run(main())
