"""The records the control API answers with, as `TypedDict`s (the JSON the mock sends, field for
field: a field the mock may leave out is optional here, never `None` in its place).

They mirror the Rust library's types: `KeyRecord`, `NewKey`, `Fault` and `ActiveFault`,
`JournalEntry` and `FormPart`, `CallbackRecord`, `StateSnapshot`, and the clock.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict

__all__ = [
    "ActiveFault",
    "CallbackRecord",
    "ClockState",
    "Fault",
    "FormPart",
    "JournalEntry",
    "Key",
    "KeyRecord",
    "NewKey",
    "StateSnapshot",
    "StreamEvent",
    "VideoOutcome",
]

#: A video task's forced outcome (`set_video_outcome`).
VideoOutcome = Literal["completed", "failed", "error"]


class Key(TypedDict):
    """A demo key of the ready object."""

    id: int
    label: str
    key: str
    state: str


class KeyRecord(TypedDict):
    """A key's full record (new-api's token), as `GET /__mock/keys/{id}` answers it. `key` is
    the secret without `sk-`."""

    id: int
    user_id: int
    key: str
    status: int
    name: str
    created_time: int
    accessed_time: int
    expired_time: int
    remain_quota: int
    unlimited_quota: bool
    model_limits_enabled: bool
    model_limits: str
    allow_ips: Optional[str]
    used_quota: int
    group: str
    cross_group_retry: bool


class NewKey(TypedDict, total=False):
    """A key to create (`add_key`): any field of `KeyRecord`; the rest get defaults (a new id
    and secret, the demo account, enabled, never expiring)."""

    id: int
    user_id: int
    key: str
    status: int
    name: str
    expired_time: int
    remain_quota: int
    unlimited_quota: bool
    model_limits_enabled: bool
    model_limits: str
    allow_ips: str
    used_quota: int
    group: str
    cross_group_retry: bool


class _FaultRequired(TypedDict):
    kind: Literal[
        "status",
        "delay",
        "reset",
        "hang",
        "stream_cut",
        "stream_stall",
        "stream_malformed",
        "upstream",
    ]


class Fault(_FaultRequired, total=False):
    """A fault rule (docs/mock.md, "Faults"): `route` (a pattern, default `*`), `kind` and its
    fields (`status` and `retry_after`; `ms`; `event`; `upstream`'s `status` and `body`, an
    Ali submit's upstream answer), `times`, `probability`, and `seed` (reseeds the faults'
    draws)."""

    route: str
    status: int
    retry_after: int
    body: Any
    ms: int
    event: int
    times: int
    probability: float
    seed: int


class ActiveFault(Fault, total=False):
    """An installed fault (`faults()`): the rule, its `id` and how often it has `fired`."""

    id: int
    fired: int


class _FormPartRequired(TypedDict):
    name: str


class FormPart(_FormPartRequired, total=False):
    """One part of a multipart request body: a text part has `value` (its first 256 bytes), a
    file part `filename`, `content_type` and `size`."""

    value: str
    filename: str
    content_type: str
    size: int


class _JournalRequired(TypedDict):
    seq: int
    at_ms: int
    request_id: str
    method: str
    path: str
    client_ip: str
    status: int
    duration_us: int


class JournalEntry(_JournalRequired, total=False):
    """One request the mock served (`requests()`), oldest first. `headers` maps lowercase
    names to values, credentials redacted (`Bearer ***`); `form` lists the parts of a
    multipart body; `body` is the first 2 KiB of a JSON, form or text body."""

    query: str
    key_id: int
    fault: str
    body_len: int
    body: str
    replay: str
    headers: Dict[str, str]
    form: List[FormPart]


class _CallbackRequired(TypedDict):
    task_id: str
    url: str
    payload: Any
    attempts: int
    result: Literal["delivered", "failed", "refused"]
    at_ms: int


class CallbackRecord(_CallbackRequired, total=False):
    """A Kling callback the mock made (`callbacks()`): `status` when an answer came, `error`
    when it failed, `reason` when it was refused."""

    status: int
    error: str
    reason: str


class ClockState(TypedDict):
    """The mock's clock (`clock()`, `advance()`): `now` in Unix seconds, `now_ms`, and whether
    polls move it (`poll_advance`)."""

    mode: Literal["virtual", "real"]
    now: int
    now_ms: int
    poll_advance: bool


class StateSnapshot(TypedDict, total=False):
    """The whole state (`state()`, `load_state()`): opaque to a test beyond `keys`, `accounts`
    and `clock_offset_ms`; give it back unchanged."""

    accounts: List[Dict[str, Any]]
    keys: List[KeyRecord]
    videos: Any
    clock_offset_ms: int
    task_meta: List[Dict[str, Any]]
    callbacks: List[Dict[str, Any]]
    mj_tasks: List[Dict[str, Any]]


class _StreamEventRequired(TypedDict):
    data: Any


class StreamEvent(_StreamEventRequired, total=False):
    """One event of a scripted stream (`script_stream`): `data` is sent as it is when it is a
    string, else as its JSON; `event` names it; `wait_ms` is the wait before it."""

    event: str
    wait_ms: int
