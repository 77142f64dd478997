"""Where the `gatecheck` binary of this package is."""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["bin_path", "resolve_binary"]

_EXE = "gatecheck" + (sysconfig.get_config_var("EXE") or "")


def _user_scheme() -> str:
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def bin_path() -> str:
    """The path of the `gatecheck` binary installed with this package.

    The wheel puts it in the environment's scripts directory (a venv's `bin/`); a `pip install
    --user` puts it in the user's, and `pip install --target DIR` in `DIR/bin`. Raises
    `FileNotFoundError` naming the places looked at when it is in none of them.
    """
    candidates = [
        os.path.join(sysconfig.get_path("scripts"), _EXE),
        os.path.join(sysconfig.get_path("scripts", scheme=_user_scheme()), _EXE),
        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin", _EXE),
    ]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the gatecheck binary of the gatecheck-harness package is not installed; looked at "
        + ", ".join(candidates)
        + " (set GATECHECK_BIN to a gatecheck binary to use that one)"
    )


def resolve_binary(explicit: str | None = None) -> str:
    """The binary to run: `explicit` when given, else `$GATECHECK_BIN`, else `bin_path()`."""
    if explicit:
        return explicit
    from_env = os.environ.get("GATECHECK_BIN")
    if from_env:
        return from_env
    return bin_path()
