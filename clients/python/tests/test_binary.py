"""Where the sidecar binary is looked for, in which order, and the error listing every place."""

from __future__ import annotations

import os
import stat
from typing import List

import pytest

import mcp_sidecar._binary as binary_mod
from mcp_sidecar import ENV_VAR, ErrorCode, SidecarError, find_sidecar_bin


def _exe(directory: str) -> str:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "mcp-sidecar")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def places(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """Four candidate locations, none populated: explicit, env, package scripts dir, PATH."""
    dirs = {k: str(tmp_path / k) for k in ("explicit", "env", "scripts", "user", "path")}
    for d in dirs.values():
        os.makedirs(d)
    monkeypatch.setattr(binary_mod, "package_dirs", lambda: [dirs["scripts"], dirs["user"]])
    monkeypatch.setenv("PATH", dirs["path"])
    monkeypatch.delenv(ENV_VAR, raising=False)
    return dirs


def test_explicit_argument_wins(places, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    explicit = _exe(places["explicit"])
    monkeypatch.setenv(ENV_VAR, _exe(places["env"]))
    _exe(places["scripts"])
    _exe(places["path"])
    assert find_sidecar_bin(explicit) == explicit


def test_env_var_before_package_and_path(places, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    env = _exe(places["env"])
    _exe(places["scripts"])
    _exe(places["path"])
    monkeypatch.setenv(ENV_VAR, env)
    assert find_sidecar_bin() == env


def test_package_scripts_dir_before_path(places) -> None:  # type: ignore[no-untyped-def]
    scripts = _exe(places["scripts"])
    _exe(places["path"])
    assert find_sidecar_bin() == scripts


def test_user_scripts_dir_second(places) -> None:  # type: ignore[no-untyped-def]
    user = _exe(places["user"])
    _exe(places["path"])
    assert find_sidecar_bin() == user


def test_path_last(places) -> None:  # type: ignore[no-untyped-def]
    on_path = _exe(places["path"])
    assert find_sidecar_bin() == on_path


def test_not_found_lists_every_place(places) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SidecarError) as info:
        find_sidecar_bin()
    err = info.value
    assert err.code == ErrorCode.BINARY_NOT_FOUND
    assert err.rpc_code == 0
    searched: List[str] = err.data["searched"]
    assert len(searched) == 5
    assert "binary argument" in searched[0]
    assert ENV_VAR in searched[1]
    assert places["scripts"] in searched[2]
    assert places["user"] in searched[3]
    assert "PATH" in searched[4]
    for place in searched:
        assert place.split(" (")[0].split(": ")[-1] in err.message or place in err.message


def test_explicit_or_env_that_is_wrong_is_an_error_not_a_fallback(places, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _exe(places["path"])
    with pytest.raises(SidecarError) as info:
        find_sidecar_bin(os.path.join(places["explicit"], "nope"))
    assert info.value.code == ErrorCode.BINARY_NOT_FOUND
    assert "does not exist" in info.value.message
    monkeypatch.setenv(ENV_VAR, os.path.join(places["env"], "nope"))
    with pytest.raises(SidecarError) as info:
        find_sidecar_bin()
    assert ENV_VAR in info.value.message


def test_bare_name_is_looked_up_on_path(places) -> None:  # type: ignore[no-untyped-def]
    on_path = _exe(places["path"])
    assert find_sidecar_bin("mcp-sidecar") == on_path


def test_real_package_dirs_include_the_environment_scripts_dir() -> None:
    import sysconfig

    assert binary_mod.package_dirs()[0] == sysconfig.get_path("scripts")


def test_client_reports_binary_not_found(places) -> None:  # type: ignore[no-untyped-def]
    from mcp_sidecar import Sidecar

    with pytest.raises(SidecarError) as info:
        Sidecar()
    assert info.value.code == ErrorCode.BINARY_NOT_FOUND
