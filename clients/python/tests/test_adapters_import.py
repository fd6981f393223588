"""The framework adapters cost a program that does not use them nothing, and a missing framework
is named with the extra that installs it. Run in fresh interpreters, whether or not the
frameworks are installed here: the "missing" case hides the framework from the import system."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

HIDE = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r} or name.startswith({module!r} + "."):
            raise ImportError("No module named " + repr(name))
        return None
sys.meta_path.insert(0, Hide())
"""


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "adapter,module,extra",
    [
        ("openai_agents", "agents", "openai-agents"),
        ("langchain", "langchain_core", "langchain"),
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ],
)
def test_a_missing_framework_names_its_extra(adapter: str, module: str, extra: str) -> None:
    code = HIDE.format(module=module) + f"""
try:
    import mcp_sidecar.adapters.{adapter}
except ImportError as e:
    print(e)
else:
    raise SystemExit("imported without {module}")
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert f"mcp_sidecar.adapters.{adapter} needs the `{module}` package" in done.stdout
    assert f"pip install 'mcp-sidecar[{extra}]'" in done.stdout


def test_importing_the_client_imports_no_adapter_nor_framework() -> None:
    code = """
import sys, mcp_sidecar
from mcp_sidecar import AsyncSidecar
loaded = sorted(m for m in sys.modules
                if m.startswith(("mcp_sidecar.adapters", "agents", "langchain", "pydantic", "mcp.")))
print(loaded)
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
