"""The LangChain adapter in a real agent loop (LangChain's ``create_agent``, a LangGraph graph) with LangChain's
``GenericFakeChatModel``: the model asks for a tool, the sidecar calls the fixture, the
``ToolMessage`` reaches the model, the run ends with the final answer."""

from __future__ import annotations

import asyncio
from typing import Any, List

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

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
import support
from mcp_sidecar import AsyncSidecar
from mcp_sidecar.adapters.langchain import SidecarMCPClient, chat_model_sampler


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, which has no ``bind_tools``: binding tools keeps the script,
    and every batch of messages the agent sends is recorded."""

    seen: List[List[BaseMessage]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self

    async def _agenerate(self, messages: List[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return await super()._agenerate(messages, *args, **kwargs)


def _model(*replies: AIMessage) -> ScriptedChatModel:
    # Streaming off: the fake model streams nothing for a reply that is only tool calls, and
    # astream_events would otherwise stream.
    model = ScriptedChatModel(messages=iter(replies), disable_streaming=True)
    model.seen = []
    return model


def _call(name: str, args: Any, call_id: str = "c1") -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _client(**kwargs: Any) -> SidecarMCPClient:
    return SidecarMCPClient(SERVERS, sidecar_options=SIDECAR_OPTIONS, **kwargs)


def _tool_message(model: ScriptedChatModel) -> ToolMessage:
    found = [m for m in model.seen[1] if isinstance(m, ToolMessage)]
    assert len(found) == 1
    return found[0]


def test_a_tool_call_reaches_the_model_and_the_run_ends() -> None:
    async def main() -> None:
        model = _model(_call(ECHO, {"message": "hello sidecar"}), AIMessage(content="done"))
        async with _client() as client:
            tools = await client.get_tools()
            assert ECHO in [t.name for t in tools]
            echo = next(t for t in tools if t.name == ECHO)
            assert echo.args_schema["required"] == ["message"]  # type: ignore[index]
            agent = create_agent(model, tools)
            state = await agent.ainvoke({"messages": [("user", "echo something")]})
            message = _tool_message(model)
            assert message.tool_call_id == "c1" and message.status == "success"
            assert message.content == [{"type": "text", "text": "hello sidecar"}]
            assert message.artifact == {"structured_content": {"length": 13, "message": "hello sidecar"}}
            assert state["messages"][-1].content == "done"

    asyncio.run(main())


def test_an_image_result_reaches_the_model_as_a_base64_block() -> None:
    async def main() -> None:
        model = _model(_call(IMAGE, {}), AIMessage(content="a pixel"))
        async with _client() as client:
            agent = create_agent(model, await client.get_tools())
            state = await agent.ainvoke({"messages": [("user", "show me")]})
            content = _tool_message(model).content
            assert {"type": "image", "base64": PNG_B64, "mime_type": "image/png"} in [
                {k: b.get(k) for k in ("type", "base64", "mime_type")} for b in content  # type: ignore[union-attr]
            ]
            assert state["messages"][-1].content == "a pixel"

    asyncio.run(main())


def test_a_tool_error_reaches_the_model_as_an_error_tool_message() -> None:
    async def main() -> None:
        model = _model(_call(FAIL, {"message": "disk on fire"}), AIMessage(content="it failed"))
        async with _client() as client:
            agent = create_agent(model, await client.get_tools())
            state = await agent.ainvoke({"messages": [("user", "try")]})
            message = _tool_message(model)
            assert message.status == "error" and "disk on fire" in str(message.content)
            assert state["messages"][-1].content == "it failed"

    asyncio.run(main())


def test_a_sidecar_refusal_reaches_the_model_with_its_code() -> None:
    async def main() -> None:
        model = _model(_call(ECHO, {"message": 42}), AIMessage(content="bad args"))
        async with _client() as client:
            agent = create_agent(model, await client.get_tools())
            await agent.ainvoke({"messages": [("user", "try")]})
            message = _tool_message(model)
            assert message.status == "error"
            assert str(message.content).startswith("INVALID_ARGUMENTS: ")

    asyncio.run(main())


def test_cancelling_the_run_cancels_the_call_at_the_server() -> None:
    async def main() -> None:
        blocker = Blocker()
        model = _model(_call(ASK, SAMPLING_ASK))
        async with _client(sampling=blocker) as client:
            agent = create_agent(model, await client.get_tools())
            run = asyncio.ensure_future(agent.ainvoke({"messages": [("user", "go")]}))
            await cancel_run_at_server(run, blocker)
            assert client.sidecar is not None
            again = await client.sidecar.call_tool(ECHO, {"message": "still here"})
            assert again["text"] == "still here"

    asyncio.run(main())


def test_a_server_sampling_request_is_answered_by_a_chat_model() -> None:
    async def main() -> None:
        sampler = _model(AIMessage(content="teal"))
        model = _model(_call(ASK, SAMPLING_ASK), AIMessage(content="it said teal"))
        async with _client(sampling=chat_model_sampler(sampler)) as client:
            agent = create_agent(model, await client.get_tools())
            state = await agent.ainvoke({"messages": [("user", "ask the server")]})
            assert "teal" in str(_tool_message(model).content)
            assert state["messages"][-1].content == "it said teal"

    asyncio.run(main())


def test_progress_reaches_the_callback_and_the_run_events() -> None:
    async def main() -> None:
        seen: List[Any] = []
        model = _model(_call(PROGRESS, {"steps": 3}), AIMessage(content="ok"))
        async with _client(on_progress=seen.append) as client:
            agent = create_agent(model, await client.get_tools())
            events = [
                e
                async for e in agent.astream_events({"messages": [("user", "go")]}, version="v2")
                if e["event"] == "on_custom_event" and e["name"] == "mcp_progress"
            ]
        assert seen and seen[-1]["progress"] == 3
        assert events and events[-1]["data"]["progress"] == 3

    asyncio.run(main())


def test_prompts_become_messages_and_resources_blobs() -> None:
    async def main() -> None:
        async with _client() as client:
            messages = await client.get_prompt("fx", "greet", arguments={"name": "Ada"})
            assert messages and "Ada" in str(messages[0].content)
            blobs = {b.metadata["uri"]: b for b in await client.get_resources("fx")}
            assert "fixture://text/readme" in blobs and blobs["fixture://text/readme"].as_string()
            pixel = blobs["fixture://blob/pixel"]
            assert pixel.mimetype == "image/png" and pixel.as_bytes().startswith(b"\x89PNG")
            (one,) = await client.get_resources(uris=["fixture://text/readme"])
            assert one.metadata["server"] == "fx"

    asyncio.run(main())


def test_one_sidecar_for_the_life_of_the_client() -> None:
    async def main() -> None:
        async with _client() as client:
            tools = {t.name: t for t in await client.get_tools()}
            assert client.sidecar is not None
            first = client.sidecar
            for i in range(3):
                await tools[ECHO].ainvoke({"message": f"m{i}"})
            status = (await first.list_servers())["servers"][0]
            assert client.sidecar is first and status.get("restarts", 0) == 0
            stats = (await first.server_stats())["servers"][0]
            assert stats["total"]["calls"] >= 3

    asyncio.run(main())


def test_a_shared_sidecar_and_a_tool_list_that_follows_its_changes() -> None:
    async def main() -> None:
        async with AsyncSidecar(**SIDECAR_OPTIONS) as sidecar:
            await sidecar.add_server("fx", SERVERS["fx"])
            client = SidecarMCPClient(sidecar=sidecar)
            before = {t.name for t in await client.get_tools()}
            assert ECHO in before and "mcp__fx2__echo" not in before
            await sidecar.add_server("fx2", support.fixture_config())
            after = {t.name for t in await client.get_tools()}
            assert "mcp__fx2__echo" in after
            await client.aclose()
            assert (await sidecar.call_tool(ECHO, {"message": "shared"}))["text"] == "shared"

    asyncio.run(main())
