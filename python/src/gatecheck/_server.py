"""A running `gatecheck serve`: start it, talk to its control API (`/__mock/*`), stop it;
`GatecheckServer` with blocking calls and `AsyncGatecheckServer`, the same mock as coroutines
(each is reached from the other: `server.aio`, `async_server.sync`, so the two live here)."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar, Union, cast, overload

from ._process import (
    CLOCKS,
    DEFAULT_START_TIMEOUT,
    PROFILES,
    GatecheckError,
    GatecheckStartError,
    describe_exit,
    launch,
    stop,
    tail,
)
from ._types import (
    ActiveFault,
    CallbackRecord,
    ClockState,
    Fault,
    JournalEntry,
    Key,
    KeyRecord,
    NewKey,
    StateSnapshot,
    StreamEvent,
    VideoOutcome,
)

__all__ = [
    "AsyncGatecheckServer",
    "GatecheckError",
    "GatecheckServer",
    "GatecheckStartError",
    "Key",
    "PROFILES",
    "CLOCKS",
    "DEFAULT_START_TIMEOUT",
]

#: Seconds one control API request may take.
_CONTROL_TIMEOUT = 10.0


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
        poll_advance: Optional[bool] = None,
        fixtures: Optional[Union[str, "os.PathLike[str]"]] = None,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_START_TIMEOUT,
    ) -> "GatecheckServer":
        """Starts `gatecheck serve --port 0` and returns once it listens.

        `binary` defaults to `$GATECHECK_BIN`, else the binary of this package. `clock` is
        `virtual` (moved by `advance`), `virtual:<unix seconds>` or `real`. On a virtual clock
        `poll_advance` (default on) lets a client that polls a video task as the OpenAI SDKs do
        (`create_and_poll`) see it end without touching the clock (docs/mock.md, "Polls that
        move the clock"). `fixtures` is a folder of fixture files (`--fixtures`); `args` are
        more `serve` options. The mock stops with this process, even if it is killed, and
        removes its folder. Raises `GatecheckStartError`, with the mock's output, when the
        binary cannot run, exits, or does not listen within `timeout` seconds (it is then
        stopped): it never waits longer.
        """
        process, ready, workdir = launch(binary, profile, clock, poll_advance, fixtures, args, timeout)
        return cls(process, ready, workdir)

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
            raise GatecheckError(f"{method} /__mock{path}: {e.code} {detail}", e.code) from e
        except (urllib.error.URLError, OSError) as e:
            raise GatecheckError(f"{method} /__mock{path}: {e} ({self._exit_note()})") from e
        return json.loads(text) if text else None

    def _exit_note(self) -> str:
        code = self._process.poll()
        if code is None:
            return "the mock is running"
        return f"the mock {describe_exit(code)}: " + tail(os.path.join(self._workdir, "serve.log"))

    @overload
    def key(self, which: str) -> str: ...

    @overload
    def key(self, which: int) -> Optional[KeyRecord]: ...

    def key(self, which: Union[str, int]) -> Union[str, Optional[KeyRecord]]:
        """`key("demo-disabled")`: the `sk-...` secret of the demo key with this label.
        `key(1)`: the current record of the key with this id, or `None` (as the Rust
        `MockServer::key`)."""
        if isinstance(which, int) and not isinstance(which, bool):
            try:
                return cast(KeyRecord, self._control("GET", f"/keys/{which}"))
            except GatecheckError as e:
                if e.status == 404:
                    return None
                raise
        for k in self.keys:
            if k["label"] == which:
                return k["key"]
        labels = ", ".join(k["label"] for k in self.keys)
        raise KeyError(f"no demo key labelled {which!r}; the labels are {labels}")

    def add_key(self, new: Optional[NewKey] = None, **fields: Any) -> KeyRecord:
        """Creates a key from a partial record (`NewKey` fields, e.g. `remain_quota=100`,
        `name="tiny"`) and returns its full record; its secret is `"sk-" + record["key"]`."""
        body: Dict[str, Any] = dict(new or {})
        body.update(fields)
        return cast(KeyRecord, self._control("POST", "/keys", body))

    def all_keys(self) -> List[KeyRecord]:
        """Every key's current record (`GET /__mock/keys`)."""
        return cast(List[KeyRecord], list(self._control("GET", "/keys")))

    def reset(self) -> None:
        """Back to the start: the fixtures' keys and tasks, an empty journal, no injected
        fault, no clock offset; requests held by a `delay` fault are answered at once,
        503 `mock_reset`, unserved (`POST /__mock/reset`)."""
        self._control("POST", "/reset")

    def clock(self) -> ClockState:
        """The mock's clock (`GET /__mock/clock`)."""
        return cast(ClockState, self._control("GET", "/clock"))

    def advance(self, seconds: float) -> ClockState:
        """Moves the virtual clock forward (`POST /__mock/clock/advance`); returns the clock."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        return cast(ClockState, self._control("POST", "/clock/advance", {"ms": int(round(seconds * 1000))}))

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
        fault: Fault = {"route": route, "kind": "status", "status": status}
        if times is not None:
            fault["times"] = times
        if retry_after is not None:
            fault["retry_after"] = retry_after
        if probability is not None:
            fault["probability"] = probability
        return self.fault(fault)

    def fault(self, fault: Fault) -> int:
        """Installs any fault of the control API (`{"kind": "delay", "ms": 500}`, `reset`,
        `hang`, `stream_cut`, ...; docs/mock.md); returns its id."""
        return int(self._control("POST", "/faults", dict(fault))["id"])

    def faults(self) -> List[ActiveFault]:
        """The installed faults, with their ids and how often they fired."""
        return cast(List[ActiveFault], list(self._control("GET", "/faults")))

    def remove_fault(self, fault_id: int) -> bool:
        """Removes one fault; False when there is no fault with this id."""
        try:
            self._control("DELETE", f"/faults/{int(fault_id)}")
        except GatecheckError as e:
            if e.status == 404:
                return False
            raise
        return True

    def clear_faults(self) -> None:
        """Removes every fault."""
        self._control("DELETE", "/faults")

    def script_stream(
        self,
        route: str,
        events: Sequence[StreamEvent],
        *,
        model: Optional[str] = None,
        gap_ms: Optional[int] = None,
        cut_after: Optional[int] = None,
        times: Optional[int] = None,
        pacing: Optional[str] = None,
    ) -> None:
        """Scripts the streamed answers of `route` (and `model`): their `events`, the wait
        between them (`gap_ms`, or an event's `wait_ms`), a cut after `cut_after` events, for
        the next `times` answers (every one when None) or until `reset()`. `pacing`: `wall`
        or `clock` (waits on the mock's clock)."""
        body: Dict[str, Any] = {"route": route, "events": [dict(e) for e in events]}
        for name, value in (
            ("model", model),
            ("gap_ms", gap_ms),
            ("cut_after", cut_after),
            ("times", times),
            ("pacing", pacing),
        ):
            if value is not None:
                body[name] = value
        self._control("POST", "/streams", body)

    def callbacks(self) -> List[CallbackRecord]:
        """The Kling callbacks the mock made (at most the last 256), oldest first."""
        return cast(List[CallbackRecord], list(self._control("GET", "/callbacks")))

    def state(self) -> StateSnapshot:
        """The whole state (keys, accounts, tasks, clock offset), for `load_state`."""
        return cast(StateSnapshot, self._control("GET", "/state"))

    def load_state(self, state: StateSnapshot) -> None:
        """Loads a whole state that `state()` returned."""
        self._control("PUT", "/state", dict(state))

    def set_video_outcome(
        self,
        task_id: str,
        outcome: VideoOutcome,
        *,
        code: Optional[str] = None,
        message: Optional[str] = None,
        immediate: bool = False,
    ) -> None:
        """Decides how a video task that has not ended yet ends: `completed`, `failed` or
        `error` (with `code` and `message`); `immediate` ends it now."""
        body: Dict[str, Any] = {"outcome": outcome, "immediate": immediate}
        if code is not None:
            body["code"] = code
        if message is not None:
            body["message"] = message
        self._control("POST", f"/videos/{urllib.parse.quote(task_id, safe='')}/outcome", body)

    def requests(self, limit: Optional[int] = None) -> List[JournalEntry]:
        """The journal, oldest first: `method`, `path`, `query`, `status`, `key_id`,
        `headers` (credentials redacted), `body`, `form` (a multipart body's parts)..."""
        query = "" if limit is None else f"?limit={int(limit)}"
        return cast(List[JournalEntry], list(self._control("GET", "/requests" + query)["requests"]))

    def received_requests(self) -> List[JournalEntry]:
        """The whole journal, oldest first (the Rust name of `requests()`)."""
        return self.requests()

    # --- lifetime --------------------------------------------------------------------------

    def stop(self) -> None:
        """Stops the mock and removes its files: at once, even while a request waits in a
        `delay` fault (SIGTERM, then SIGKILL after 10 s should it not end)."""
        stop(self._process)
        shutil.rmtree(self._workdir, ignore_errors=True)

    @property
    def aio(self) -> "AsyncGatecheckServer":
        """This mock's control API as coroutines, for asyncio tests (`await gatecheck.aio.advance(10)`)."""
        return AsyncGatecheckServer(self)

    def __enter__(self) -> "GatecheckServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"GatecheckServer(base_url={self.base_url!r}, pid={self._process.pid})"


# --- the same control API as coroutines ----------------------------------------------------

T = TypeVar("T")


async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))


class AsyncGatecheckServer:
    """A running `gatecheck serve`, driven with coroutines: every method of `GatecheckServer`
    runs its HTTP call in a worker thread (`asyncio.to_thread`), so an event loop that also
    drives the client under test is never blocked. Start one with `await
    AsyncGatecheckServer.start(...)` (or `async with`), or wrap a running server (the pytest
    fixture's): `gatecheck.aio`. `sync` is the same mock as a
    `GatecheckServer`; `base_url`, `demo_key`, `access_token`, `user_id`, `keys` and `ready`
    are its attributes."""

    def __init__(self, server: GatecheckServer):
        self.sync = server
        self.ready = server.ready
        self.base_url = server.base_url
        self.demo_key = server.demo_key
        self.access_token = server.access_token
        self.user_id = server.user_id
        self.keys = server.keys

    @classmethod
    async def start(
        cls,
        binary: Optional[str] = None,
        *,
        profile: str = "documented",
        clock: str = "virtual",
        poll_advance: Optional[bool] = None,
        fixtures: Optional[Union[str, "os.PathLike[str]"]] = None,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_START_TIMEOUT,
    ) -> "AsyncGatecheckServer":
        """As `GatecheckServer.start`, without blocking the event loop."""
        server = await _run(
            GatecheckServer.start,
            binary,
            profile=profile,
            clock=clock,
            poll_advance=poll_advance,
            fixtures=fixtures,
            args=args,
            timeout=timeout,
        )
        return cls(server)

    @overload
    async def key(self, which: str) -> str: ...

    @overload
    async def key(self, which: int) -> Optional[KeyRecord]: ...

    async def key(self, which: Union[str, int]) -> Union[str, Optional[KeyRecord]]:
        """As `GatecheckServer.key`."""
        return await _run(self.sync.key, which)

    async def add_key(self, new: Optional[NewKey] = None, **fields: Any) -> KeyRecord:
        return await _run(self.sync.add_key, new, **fields)

    async def all_keys(self) -> List[KeyRecord]:
        return await _run(self.sync.all_keys)

    async def reset(self) -> None:
        await _run(self.sync.reset)

    async def clock(self) -> ClockState:
        return await _run(self.sync.clock)

    async def advance(self, seconds: float) -> ClockState:
        return await _run(self.sync.advance, seconds)

    async def inject(
        self,
        route: str,
        status: int,
        *,
        times: Optional[int] = None,
        retry_after: Optional[int] = None,
        probability: Optional[float] = None,
    ) -> int:
        return await _run(
            self.sync.inject, route, status, times=times, retry_after=retry_after, probability=probability
        )

    async def fault(self, fault: Fault) -> int:
        return await _run(self.sync.fault, fault)

    async def faults(self) -> List[ActiveFault]:
        return await _run(self.sync.faults)

    async def remove_fault(self, fault_id: int) -> bool:
        return await _run(self.sync.remove_fault, fault_id)

    async def clear_faults(self) -> None:
        await _run(self.sync.clear_faults)

    async def script_stream(
        self,
        route: str,
        events: Sequence[StreamEvent],
        *,
        model: Optional[str] = None,
        gap_ms: Optional[int] = None,
        cut_after: Optional[int] = None,
        times: Optional[int] = None,
        pacing: Optional[str] = None,
    ) -> None:
        await _run(
            self.sync.script_stream,
            route,
            events,
            model=model,
            gap_ms=gap_ms,
            cut_after=cut_after,
            times=times,
            pacing=pacing,
        )

    async def callbacks(self) -> List[CallbackRecord]:
        return await _run(self.sync.callbacks)

    async def state(self) -> StateSnapshot:
        return await _run(self.sync.state)

    async def load_state(self, state: StateSnapshot) -> None:
        await _run(self.sync.load_state, state)

    async def set_video_outcome(
        self,
        task_id: str,
        outcome: VideoOutcome,
        *,
        code: Optional[str] = None,
        message: Optional[str] = None,
        immediate: bool = False,
    ) -> None:
        await _run(
            self.sync.set_video_outcome, task_id, outcome, code=code, message=message, immediate=immediate
        )

    async def requests(self, limit: Optional[int] = None) -> List[JournalEntry]:
        return await _run(self.sync.requests, limit)

    async def received_requests(self) -> List[JournalEntry]:
        return await _run(self.sync.received_requests)

    async def stop(self) -> None:
        """Stops the mock and removes its files."""
        await _run(self.sync.stop)

    async def __aenter__(self) -> "AsyncGatecheckServer":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def __repr__(self) -> str:
        return f"Async{self.sync!r}"
