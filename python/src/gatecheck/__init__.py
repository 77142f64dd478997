"""gatecheck: a stateful mock of new-api model-access gateways for tests.

- `bin_path()`: the `gatecheck` binary this package installed (`python -m gatecheck` runs it).
- `GatecheckServer.start()`: a `gatecheck serve` on a free port and the virtual clock, with
  `reset()`, `advance(seconds)`, `inject(route, status, times=)` and `requests()`.
- The pytest plugin (loaded by itself): the `gatecheck_server` and `gatecheck` fixtures.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._binary import bin_path
from ._server import PROFILES, GatecheckError, GatecheckServer, GatecheckStartError, Key

try:
    __version__ = version("gatecheck")
except PackageNotFoundError:  # running from a checkout
    __version__ = "0.0.0"

__all__ = [
    "PROFILES",
    "GatecheckError",
    "GatecheckServer",
    "GatecheckStartError",
    "Key",
    "__version__",
    "bin_path",
]
