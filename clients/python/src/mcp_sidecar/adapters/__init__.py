"""Adapters from the sidecar to agent frameworks, one module per framework, each a lazy import:

- :mod:`mcp_sidecar.adapters.openai_agents`: an ``MCPServer`` for the OpenAI Agents SDK's
  ``Agent(mcp_servers=[...])`` (extra ``mcp-sidecar[openai-agents]``).
- :mod:`mcp_sidecar.adapters.langchain`: LangChain tools, ``await client.get_tools()`` as with
  ``langchain-mcp-adapters`` (extra ``mcp-sidecar[langchain]``).
- :mod:`mcp_sidecar.adapters.pydantic_ai`: a Pydantic AI toolset for ``Agent(toolsets=[...])``
  (extra ``mcp-sidecar[pydantic-ai]``).

Nothing here is imported by ``import mcp_sidecar``: a program that uses only the client pays
nothing for the adapters, and a framework that is not installed is reported by name (with the
extra that installs it) when its adapter module is imported.
"""
