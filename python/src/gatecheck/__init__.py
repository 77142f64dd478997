"""gatecheck: a stateful mock of new-api model-access gateways for tests (the distribution
`gatecheck-harness`; the module, the console script and the fixtures are named `gatecheck`).

- `bin_path()`: the `gatecheck` binary this package installed (`python -m gatecheck` runs it).
- `GatecheckServer.start()`: a `gatecheck serve` on a free port and the virtual clock, with the
  whole control API of the Rust `MockServer` in snake_case: `add_key`, `key`, `inject`/`fault`,
  `faults`, `remove_fault`, `clear_faults`, `script_stream`, `callbacks`, `state`,
  `load_state`, `set_video_outcome`, `advance`, `clock`, `reset`, `requests`; typed records
  (`TypedDict`s: `KeyRecord`, `JournalEntry`, ...). `AsyncGatecheckServer` is the same as
  coroutines.
- The pytest plugin (loaded by itself): the `gatecheck_server`, `gatecheck` and
  `make_gatecheck` fixtures and the `gatecheck` marker.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ._binary import bin_path
from ._server import CLOCKS, PROFILES, AsyncGatecheckServer, GatecheckError, GatecheckServer, GatecheckStartError
from ._types import (
    ActiveFault,
    CallbackRecord,
    ClockState,
    Fault,
    FormPart,
    JournalEntry,
    Key,
    KeyRecord,
    NewKey,
    StateSnapshot,
    StreamEvent,
    VideoOutcome,
)

#: The name this package is installed by (`pip install gatecheck-harness`): PyPI's
#: `gatecheck` is another project.
DISTRIBUTION = "gatecheck-harness"

try:
    __version__ = version(DISTRIBUTION)
except PackageNotFoundError:  # running from a checkout
    __version__ = "0.0.0"

__all__ = [
    "CLOCKS",
    "DISTRIBUTION",
    "PROFILES",
    "ActiveFault",
    "AsyncGatecheckServer",
    "CallbackRecord",
    "ClockState",
    "Fault",
    "FormPart",
    "GatecheckError",
    "GatecheckServer",
    "GatecheckStartError",
    "JournalEntry",
    "Key",
    "KeyRecord",
    "NewKey",
    "StateSnapshot",
    "StreamEvent",
    "VideoOutcome",
    "__version__",
    "bin_path",
]
