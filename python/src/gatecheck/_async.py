"""`AsyncGatecheckServer`: the control API for asyncio test suites.

Every method of `GatecheckServer`, as a coroutine: the HTTP call runs in a worker thread
(`asyncio.to_thread`), so an event loop that also drives the client under test is never
blocked. Start one with `await AsyncGatecheckServer.start(...)` (or `async with`), or wrap a
running server (the pytest fixture's): `gatecheck.aio`.
"""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any, Callable, List, Optional, Sequence, TypeVar, Union, overload

from ._server import DEFAULT_START_TIMEOUT, GatecheckServer
from ._types import (
    ActiveFault,
    CallbackRecord,
    ClockState,
    Fault,
    JournalEntry,
    KeyRecord,
    NewKey,
    StateSnapshot,
    StreamEvent,
    VideoOutcome,
)

__all__ = ["AsyncGatecheckServer"]

T = TypeVar("T")


async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))


class AsyncGatecheckServer:
    """A running `gatecheck serve`, driven with coroutines. `sync` is the same mock as a
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
