"""The pytest plugin (entry point `pytest11`): a `gatecheck serve` per test session, per xdist
worker, and mocks of a test's own.

- `gatecheck_server` (session): the running mock, a `GatecheckServer` (virtual clock, polls
  move it: an SDK's `create_and_poll` ends; docs/mock.md, "Polls that move the clock").
- `gatecheck` (function): the same mock, reset before the test: no key, task, fault or clock
  offset of an earlier test is left. A test marked `@pytest.mark.gatecheck(profile=...,
  clock=..., fixtures=..., poll_advance=..., args=[...])` gets a mock of its own with those
  options instead, stopped after it.
- `make_gatecheck` (function): a factory, as pytest-httpserver's `make_httpserver`:
  `make_gatecheck(profile="new-api", clock="real", fixtures=DIR)` starts a mock with those
  options and returns it; every one is stopped after the test.

Options, on the command line or in the ini file (`[pytest]`, `[tool.pytest.ini_options]`):
`--gatecheck-bin` / `gatecheck_bin` (default `$GATECHECK_BIN`, else the package's binary),
`--gatecheck-profile` / `gatecheck_profile` (`documented`, `new-api` or `new-api-adaptors`),
`gatecheck_start_timeout` (seconds, default 30).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, List, Optional, Sequence, Union

import pytest

from ._server import DEFAULT_START_TIMEOUT, PROFILES, GatecheckServer, GatecheckStartError

#: The marker's help line (`pytest --markers`).
MARKER = (
    "gatecheck(profile='documented', clock='virtual', fixtures=None, poll_advance=None, args=()): "
    "the `gatecheck` fixture of this test is a mock of its own, started with these options"
)


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
    parser.addini("gatecheck_profile", "the mock's profile: documented, new-api or new-api-adaptors", default="documented")
    parser.addini(
        "gatecheck_start_timeout",
        "seconds the mock may take to start",
        default=str(DEFAULT_START_TIMEOUT),
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
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


#: The keyword arguments of the marker (and of `make_gatecheck`).
_MARKER_OPTIONS = {"profile", "clock", "fixtures", "poll_advance", "args"}


class MakeGatecheck:
    """The `make_gatecheck` fixture: call it to start a mock of this test's own."""

    def __init__(self, config: pytest.Config):
        self._config = config
        self._started: List[GatecheckServer] = []

    def __call__(
        self,
        *,
        profile: Optional[str] = None,
        clock: str = "virtual",
        fixtures: Optional[Union[str, "os.PathLike[str]"]] = None,
        poll_advance: Optional[bool] = None,
        args: Sequence[str] = (),
    ) -> GatecheckServer:
        """Starts a mock with these options (`profile` defaults to the run's
        `gatecheck_profile`); it is stopped after the test. A mock that cannot start fails
        the test with its output."""
        config = self._config
        try:
            server = GatecheckServer.start(
                _binary(config),
                profile=profile or _profile(config),
                clock=clock,
                fixtures=fixtures,
                poll_advance=poll_advance,
                args=args,
                timeout=_timeout(config),
            )
        except (GatecheckStartError, FileNotFoundError) as e:
            pytest.fail(f"gatecheck: the mock did not start: {e}", pytrace=False)
        self._started.append(server)
        return server

    def stop_all(self) -> None:
        while self._started:
            self._started.pop().stop()


@pytest.fixture
def make_gatecheck(request: pytest.FixtureRequest) -> Iterator[Callable[..., GatecheckServer]]:
    """A factory of mocks with other options than the session's: `make_gatecheck(profile=,
    clock=, fixtures=, poll_advance=, args=)` returns a started `GatecheckServer`, stopped
    after the test."""
    factory = MakeGatecheck(request.config)
    try:
        yield factory
    finally:
        factory.stop_all()


@pytest.fixture
def gatecheck(request: pytest.FixtureRequest) -> Iterator[GatecheckServer]:
    """The session's mock, reset before this test; or, for a test marked
    `@pytest.mark.gatecheck(...)`, a mock of its own started with the marker's options."""
    marker = request.node.get_closest_marker("gatecheck")
    if marker is None:
        server: GatecheckServer = request.getfixturevalue("gatecheck_server")
        server.reset()
        yield server
        return
    unknown = sorted(set(marker.kwargs) - _MARKER_OPTIONS)
    if marker.args or unknown:
        pytest.fail(
            "@pytest.mark.gatecheck takes keyword arguments only, of "
            + ", ".join(sorted(_MARKER_OPTIONS))
            + (f"; not {', '.join(unknown)}" if unknown else ""),
            pytrace=False,
        )
    options: Any = dict(marker.kwargs)
    factory = MakeGatecheck(request.config)
    try:
        yield factory(**options)
    finally:
        factory.stop_all()
