"""The pytest plugin (entry point `pytest11`): a `gatecheck serve` per test session, per xdist
worker.

- `gatecheck_server` (session): the running mock, a `GatecheckServer`.
- `gatecheck` (function): the same mock, reset before the test: no key, task, fault or clock
  offset of an earlier test is left.

Options, on the command line or in the ini file (`[pytest]`, `[tool.pytest.ini_options]`):
`--gatecheck-bin` / `gatecheck_bin` (default `$GATECHECK_BIN`, else the package's binary),
`--gatecheck-profile` / `gatecheck_profile` (`documented` or `new-api`),
`gatecheck_start_timeout` (seconds, default 30).
"""

from __future__ import annotations

import os
from typing import Iterator, Optional

import pytest

from ._server import DEFAULT_START_TIMEOUT, PROFILES, GatecheckServer, GatecheckStartError


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gatecheck", "gatecheck mock server")
    group.addoption(
        "--gatecheck-bin",
        dest="gatecheck_bin",
        default=None,
        metavar="PATH",
        help="the gatecheck binary to run (default: $GATECHECK_BIN, else the package's own)",
    )
    group.addoption(
        "--gatecheck-profile",
        dest="gatecheck_profile",
        default=None,
        choices=PROFILES,
        help="the mock's behaviour profile (default: documented)",
    )
    parser.addini("gatecheck_bin", "the gatecheck binary to run (relative to the ini file)")
    parser.addini("gatecheck_profile", "the mock's profile: documented or new-api", default="documented")
    parser.addini(
        "gatecheck_start_timeout",
        "seconds the mock may take to start",
        default=str(DEFAULT_START_TIMEOUT),
    )


def pytest_configure(config: pytest.Config) -> None:
    # A bad ini value is a usage error of the run, before any test.
    _profile(config)
    _timeout(config)


def _binary(config: pytest.Config) -> Optional[str]:
    option = config.getoption("gatecheck_bin")
    if option:
        return str(option)
    from_ini = config.getini("gatecheck_bin")
    if not from_ini:
        return None
    path = os.path.expanduser(str(from_ini))
    if os.sep in path and not os.path.isabs(path) and config.inipath is not None:
        path = os.path.join(os.path.dirname(str(config.inipath)), path)
    return path


def _profile(config: pytest.Config) -> str:
    profile = config.getoption("gatecheck_profile") or str(config.getini("gatecheck_profile"))
    if profile not in PROFILES:
        raise pytest.UsageError(f"gatecheck_profile = {profile!r}: expected one of {', '.join(PROFILES)}")
    return profile


def _timeout(config: pytest.Config) -> float:
    raw = config.getini("gatecheck_start_timeout")
    try:
        return float(raw)
    except ValueError:
        raise pytest.UsageError(f"gatecheck_start_timeout = {raw!r}: expected seconds") from None


@pytest.fixture(scope="session")
def gatecheck_server(request: pytest.FixtureRequest) -> Iterator[GatecheckServer]:
    """A `gatecheck serve` on a free port and the virtual clock, for the whole session (one per
    xdist worker). A mock that cannot start fails the session's tests with its output."""
    config = request.config
    try:
        server = GatecheckServer.start(
            _binary(config), profile=_profile(config), timeout=_timeout(config)
        )
    except (GatecheckStartError, FileNotFoundError) as e:
        pytest.fail(f"gatecheck: the mock did not start: {e}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def gatecheck(gatecheck_server: GatecheckServer) -> GatecheckServer:
    """The session's mock, reset before this test."""
    gatecheck_server.reset()
    return gatecheck_server
