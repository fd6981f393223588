"""The one place a missing framework is reported: an ``ImportError`` that names the framework,
the adapter that needs it and the extra that installs it."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str, adapter: str) -> ModuleType:
    """Import ``module`` for ``adapter``, or fail naming ``pip install 'mcp-sidecar[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"{adapter} needs the `{module}` package, which is not installed "
            f"({e}); install it with: pip install 'mcp-sidecar[{extra}]'",
            name=module,
        ) from e
