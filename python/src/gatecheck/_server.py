"""A running `gatecheck serve`: start it, talk to its control API (`/__mock/*`), stop it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Sequence, TypedDict

from ._binary import resolve_binary

__all__ = ["GatecheckError", "GatecheckServer", "GatecheckStartError", "Key", "PROFILES"]

#: The behaviour profiles of `gatecheck serve --profile`.
PROFILES = ("documented", "new-api")

#: Seconds a mock may take to listen before `start` gives up and stops it.
DEFAULT_START_TIMEOUT = 30.0
#: Seconds one control API request may take.
_CONTROL_TIMEOUT = 10.0
#: Bytes of the mock's output quoted when it fails to start.
_LOG_TAIL_BYTES = 8192


class Key(TypedDict):
    """A demo key of the ready object."""

    id: int
    label: str
    key: str
    state: str


class GatecheckError(RuntimeError):
    """A control API request that did not succeed."""


class GatecheckStartError(GatecheckError):
    """The mock could not be started; the message quotes its output."""


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _LOG_TAIL_BYTES))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def _describe_exit(code: int) -> str:
    return f"was killed by signal {-code}" if code < 0 else f"exited with {code}"


def _stop(proc: "subprocess.Popen[bytes]") -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class GatecheckServer:
    """A `gatecheck serve` process on a free loopback port, on the virtual clock.

    Start one with `GatecheckServer.start()` (or use it as a context manager); the pytest
    plugin's `gatecheck_server` and `gatecheck` fixtures hand one to a test.
    """

    def __init__(self, process: "subprocess.Popen[bytes]", ready: Dict[str, Any], workdir: str):
        self._process = process
        self._workdir = workdir
        #: The whole ready object `gatecheck serve --ready-file` wrote.
        self.ready: Dict[str, Any] = ready
        #: The mock's base URL, e.g. `http://127.0.0.1:41234` (the OpenAI SDKs take `base_url + "/v1"`).
        self.base_url: str = ready["base_url"]
        #: The enabled demo key (`sk-...`).
        self.demo_key: str = ready["demo_key"]
        #: The demo account's access token (`Authorization` of `/api/token/`).
        self.access_token: str = ready["access_token"]
        #: The demo account's user id (`New-Api-User` of `/api/token/`).
        self.user_id: int = int(ready["user_id"])
        #: Every demo key: `id`, `label`, `key` and `state`.
        self.keys: List[Key] = list(ready.get("keys", []))

    @classmethod
    def start(
        cls,
        binary: Optional[str] = None,
        *,
        profile: str = "documented",
        clock: str = "virtual",
        args: Sequence[str] = (),
        timeout: float = DEFAULT_START_TIMEOUT,
    ) -> "GatecheckServer":
        """Starts `gatecheck serve --port 0` and returns once it listens.

        `binary` defaults to `$GATECHECK_BIN`, else the binary of this package. `args` are
        more `serve` options. Raises `GatecheckStartError`, with the mock's output, when the
        binary cannot run, exits, or does not listen within `timeout` seconds (it is then
        stopped): it never waits longer.
        """
        if profile not in PROFILES:
            raise GatecheckStartError(f"unknown gatecheck profile {profile!r}: expected one of {PROFILES}")
        exe = resolve_binary(binary)
        workdir = tempfile.mkdtemp(prefix="gatecheck-")
        ready_path = os.path.join(workdir, "ready.json")
        log_path = os.path.join(workdir, "serve.log")
        command = [exe, "serve", "--port", "0", "--clock", clock, "--profile", profile]
        command += ["--ready-file", ready_path, *args]
        try:
            with open(log_path, "wb") as log:
                process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
                )
        except OSError as e:
            shutil.rmtree(workdir, ignore_errors=True)
            raise GatecheckStartError(f"cannot run {exe}: {e}") from e
        try:
            ready = cls._wait_ready(process, ready_path, log_path, timeout, command)
        except BaseException:
            _stop(process)
            shutil.rmtree(workdir, ignore_errors=True)
            raise
        return cls(process, ready, workdir)

    @staticmethod
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
                    f"`{shown}` {_describe_exit(code)} before it was ready; its output:\n"
                    + (_tail(log_path) or "(nothing)")
                )
            if time.monotonic() > deadline:
                raise GatecheckStartError(
                    f"`{shown}` was not ready within {timeout:g} s and was stopped; its output:\n"
                    + (_tail(log_path) or "(nothing)")
                )
            time.sleep(0.02)

    # --- the control API ------------------------------------------------------------------

    def _control(self, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + "/__mock" + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"} if data is not None else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=_CONTROL_TIMEOUT) as response:
                text = response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")
            raise GatecheckError(f"{method} /__mock{path}: {e.code} {detail}") from e
        except (urllib.error.URLError, OSError) as e:
            raise GatecheckError(f"{method} /__mock{path}: {e} ({self._exit_note()})") from e
        return json.loads(text) if text else None

    def _exit_note(self) -> str:
        code = self._process.poll()
        if code is None:
            return "the mock is running"
        return f"the mock {_describe_exit(code)}: " + _tail(os.path.join(self._workdir, "serve.log"))

    def key(self, label: str) -> str:
        """The `sk-...` secret of the demo key with this label, e.g. `key("demo-disabled")`."""
        for k in self.keys:
            if k["label"] == label:
                return k["key"]
        labels = ", ".join(k["label"] for k in self.keys)
        raise KeyError(f"no demo key labelled {label!r}; the labels are {labels}")

    def reset(self) -> None:
        """Back to the start: the fixtures' keys and tasks, an empty journal, no injected
        fault, no clock offset (`POST /__mock/reset`)."""
        self._control("POST", "/reset")

    def advance(self, seconds: float) -> Dict[str, Any]:
        """Moves the virtual clock forward (`POST /__mock/clock/advance`); returns the clock."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        return dict(self._control("POST", "/clock/advance", {"ms": int(round(seconds * 1000))}))

    def inject(
        self,
        route: str,
        status: int,
        *,
        times: Optional[int] = None,
        retry_after: Optional[int] = None,
        probability: Optional[float] = None,
    ) -> int:
        """Answers requests matching `route` (e.g. `"POST /v1/audio/speech"`, `"/v1/*"`) with
        `status`, `times` times (forever when None). Returns the fault's id."""
        fault: Dict[str, Any] = {"route": route, "kind": "status", "status": status}
        if times is not None:
            fault["times"] = times
        if retry_after is not None:
            fault["retry_after"] = retry_after
        if probability is not None:
            fault["probability"] = probability
        return self.fault(fault)

    def fault(self, fault: Dict[str, Any]) -> int:
        """Installs any fault of the control API (`delay`, `reset`, `hang`, `stream_cut`, ...;
        docs/mock.md); returns its id."""
        return int(self._control("POST", "/faults", fault)["id"])

    def requests(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The journal, oldest first: `method`, `path`, `query`, `status`, `key_id`, `body`..."""
        query = "" if limit is None else f"?limit={int(limit)}"
        return list(self._control("GET", "/requests" + query)["requests"])

    # --- lifetime --------------------------------------------------------------------------

    def stop(self) -> None:
        """Stops the mock (SIGTERM, then SIGKILL after 10 s) and removes its files."""
        _stop(self._process)
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> "GatecheckServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"GatecheckServer(base_url={self.base_url!r}, pid={self._process.pid})"
