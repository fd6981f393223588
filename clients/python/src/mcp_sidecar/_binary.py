"""Finding the ``mcp-sidecar`` executable.

Owns the search order, tried in this order:

1. the ``binary`` argument given to the client (a path, or a bare name looked up on ``PATH``);
2. the environment variable ``MCP_SIDECAR_BIN``;
3. the binary shipped with this package: the wheel built by maturin (``bindings = "bin"``) installs
   it into the environment's scripts directory (``sysconfig.get_path("scripts")``), the user
   scheme's scripts directory for ``pip install --user``, or ``<target>/bin`` for
   ``pip install --target`` (the places ruff's ``find_ruff_bin`` looks at);
4. ``PATH`` (``shutil.which``).

An argument or variable that is given but does not name an executable is an error at once (never
silently replaced by another binary). When nothing is found, :class:`SidecarError`
``BINARY_NOT_FOUND`` lists every place looked at (also in ``data["searched"]``).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from typing import List, Optional, Union

from ._errors import ErrorCode, client_error

__all__ = ["find_sidecar_bin", "BINARY_NAME", "ENV_VAR"]

#: File name of the sidecar (plus ``.exe`` on Windows).
BINARY_NAME = "mcp-sidecar"
#: Environment variable naming the sidecar binary.
ENV_VAR = "MCP_SIDECAR_BIN"

PathArg = Union[str, "os.PathLike[str]"]


def _exe_name() -> str:
    suffix = sysconfig.get_config_var("EXE")
    return BINARY_NAME + (suffix if isinstance(suffix, str) else "")


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _user_scheme() -> str:
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def package_dirs() -> List[str]:
    """Directories where an installed wheel of this package puts the sidecar, in search order."""
    dirs = [sysconfig.get_path("scripts")]
    try:
        dirs.append(sysconfig.get_path("scripts", scheme=_user_scheme()))
    except KeyError:  # pragma: no cover - a platform without a user scheme
        pass
    # `pip install --target DIR` puts the package in DIR and scripts in DIR/bin.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs.append(os.path.join(package_root, "bin"))
    unique: List[str] = []
    for d in dirs:
        if d and d not in unique:
            unique.append(d)
    return unique


def _named(value: str, origin: str) -> str:
    """The executable named by an explicit argument or variable, or BINARY_NOT_FOUND."""
    has_dir = os.sep in value or (os.altsep is not None and os.altsep in value)
    if has_dir:
        if _is_executable(value):
            return os.path.abspath(value)
        why = "does not exist" if not os.path.exists(value) else "is not an executable file"
        searched = [f"{origin}: {value} ({why})"]
    else:
        found = shutil.which(value)
        if found is not None:
            return found
        searched = [f"{origin}: {value!r} looked up on PATH (not found)"]
    raise client_error(
        ErrorCode.BINARY_NOT_FOUND,
        f"the mcp-sidecar binary given by {origin} was not found: {searched[0]}",
        searched=searched,
    )


def find_sidecar_bin(binary: Optional[PathArg] = None) -> str:
    """The path of the ``mcp-sidecar`` executable to run (see the module doc for the order).

    Raises:
        SidecarError: ``BINARY_NOT_FOUND``, listing every place looked at.
    """
    if binary is not None:
        return _named(os.fspath(binary), "the binary argument")
    from_env = os.environ.get(ENV_VAR)
    if from_env:
        return _named(from_env, f"${ENV_VAR}")
    exe = _exe_name()
    searched = ["the binary argument (not given)", f"${ENV_VAR} (not set)"]
    for directory in package_dirs():
        candidate = os.path.join(directory, exe)
        if _is_executable(candidate):
            return candidate
        searched.append(f"{candidate} (installed with the mcp-sidecar package; absent)")
    found = shutil.which(exe)
    if found is not None:
        return found
    searched.append(f"PATH: {exe} (not found)")
    listing = "; ".join(f"{i}) {place}" for i, place in enumerate(searched, 1))
    raise client_error(
        ErrorCode.BINARY_NOT_FOUND,
        f"the mcp-sidecar binary was not found; looked at: {listing}. Install the package "
        f"with its binary (pip install mcp-sidecar), set ${ENV_VAR}, or pass binary=PATH",
        searched=searched,
    )
