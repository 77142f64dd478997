"""The installed wheel: the binary on the venv's PATH, `python -m gatecheck`, `bin_path()`."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig

import gatecheck


def test_the_binary_is_in_the_venvs_scripts_and_bin_path_names_it() -> None:
    path = gatecheck.bin_path()
    assert os.path.dirname(path) == sysconfig.get_path("scripts")
    assert os.access(path, os.X_OK)
    version = subprocess.run([path, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("gatecheck "), version.stdout


def test_python_m_gatecheck_is_the_same_cli() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "gatecheck", "--version"], capture_output=True, text=True, check=True
    )
    direct = subprocess.run([gatecheck.bin_path(), "--version"], capture_output=True, text=True)
    assert run.stdout == direct.stdout
    usage = subprocess.run([sys.executable, "-m", "gatecheck", "no-such-command"], capture_output=True, text=True)
    assert usage.returncode == 2 and "no-such-command" in usage.stderr


def test_the_plugin_is_registered_by_its_entry_point() -> None:
    from importlib.metadata import entry_points

    plugins = {e.name: e.value for e in entry_points(group="pytest11")}
    assert plugins.get("gatecheck") == "gatecheck.pytest_plugin"


def test_the_package_is_typed() -> None:
    assert os.path.isfile(os.path.join(os.path.dirname(gatecheck.__file__), "py.typed"))
    assert gatecheck.__version__ != "0.0.0"


def test_a_server_outside_pytest() -> None:
    with gatecheck.GatecheckServer.start(profile="new-api") as server:
        assert server.ready["profile"] == "new-api"
        assert server.advance(1.5)["now_ms"] % 1000 == 500
    assert server._process.poll() is not None
