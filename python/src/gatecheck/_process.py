"""Starting and stopping a `gatecheck serve` process: the profiles and clocks it takes, the
errors of a start that fails, and `launch`, which returns once the mock listens."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from ._binary import resolve_binary

#: The behaviour profiles of `gatecheck serve --profile` (`gatecheck profiles`): the spec's
#: letter, new-api as its task plugins answer, new-api's Go task adaptors before them.
PROFILES = ("documented", "new-api", "new-api-adaptors")
#: The clocks of `gatecheck serve --clock` (`virtual:<unix seconds>` starts elsewhere).
CLOCKS = ("virtual", "real")

#: Seconds a mock may take to listen before `start` gives up and stops it.
DEFAULT_START_TIMEOUT = 30.0
#: Bytes of the mock's output quoted when it fails to start.
_LOG_TAIL_BYTES = 8192


class GatecheckError(RuntimeError):
    """A control API request that did not succeed; `status` is the HTTP status, when an
    answer came."""

    def __init__(self, message: str, status: Optional[int] = None):
        super().__init__(message)
        self.status = status


class GatecheckStartError(GatecheckError):
    """The mock could not be started; the message quotes its output."""


def tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _LOG_TAIL_BYTES))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def describe_exit(code: int) -> str:
    return f"was killed by signal {-code}" if code < 0 else f"exited with {code}"


def stop(proc: "subprocess.Popen[bytes]") -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def launch(
    binary: Optional[str],
    profile: str,
    clock: str,
    poll_advance: Optional[bool],
    fixtures: Optional[Union[str, "os.PathLike[str]"]],
    args: Sequence[str],
    timeout: float,
) -> Tuple["subprocess.Popen[bytes]", Dict[str, Any], str]:
    """Starts `gatecheck serve --port 0` as `GatecheckServer.start` documents it: the process,
    the ready object and the mock's folder, once it listens."""
    if profile not in PROFILES:
        raise GatecheckStartError(f"unknown gatecheck profile {profile!r}: expected one of {PROFILES}")
    virtual = clock == "virtual" or clock.startswith("virtual:")
    if not virtual and clock != "real":
        raise GatecheckStartError(f"unknown gatecheck clock {clock!r}: expected virtual, virtual:<unix seconds> or real")
    if poll_advance and not virtual:
        raise GatecheckStartError("poll_advance moves a virtual clock: give clock='virtual' too")
    exe = resolve_binary(binary)
    workdir = tempfile.mkdtemp(prefix="gatecheck-")
    ready_path = os.path.join(workdir, "ready.json")
    log_path = os.path.join(workdir, "serve.log")
    command = [exe, "serve", "--port", "0", "--clock", clock, "--profile", profile]
    command += ["--ready-file", ready_path, "--exit-with-parent", "--remove-on-exit", workdir]
    if virtual and poll_advance is not False:
        command.append("--poll-advance")
    if fixtures is not None:
        command += ["--fixtures", os.fspath(fixtures)]
    command += list(args)
    try:
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
    except OSError as e:
        shutil.rmtree(workdir, ignore_errors=True)
        raise GatecheckStartError(f"cannot run {exe}: {e}") from e
    try:
        ready = _wait_ready(process, ready_path, log_path, timeout, command)
    except BaseException:
        stop(process)
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    return process, ready, workdir


def _wait_ready(
    process: "subprocess.Popen[bytes]",
    ready_path: str,
    log_path: str,
    timeout: float,
    command: List[str],
) -> Dict[str, Any]:
    deadline = time.monotonic() + timeout
    shown = " ".join(command)
    while True:
        # The mock writes the file atomically: once it exists, it is whole.
        if os.path.exists(ready_path):
            with open(ready_path, encoding="utf-8") as f:
                return dict(json.load(f))
        code = process.poll()
        if code is not None:
            raise GatecheckStartError(
                f"`{shown}` {describe_exit(code)} before it was ready; its output:\n"
                + (tail(log_path) or "(nothing)")
            )
        if time.monotonic() > deadline:
            raise GatecheckStartError(
                f"`{shown}` was not ready within {timeout:g} s and was stopped; its output:\n"
                + (tail(log_path) or "(nothing)")
            )
        time.sleep(0.02)
