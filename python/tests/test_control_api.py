"""The whole control API from Python, as the Rust `MockServer` has it, sync and
asyncio, with the official OpenAI SDK as the client under test."""

from __future__ import annotations

import asyncio
import io
import struct
import wave

import openai
import pytest

import gatecheck


def client(server: gatecheck.GatecheckServer, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url + "/v1", api_key=api_key, max_retries=0)


def a_wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24000)
        w.writeframes(struct.pack("<h", 0) * 4800)
    return out.getvalue()


def test_keys_are_added_and_read_back_as_records(gatecheck: gatecheck.GatecheckServer) -> None:
    record = gatecheck.add_key(name="tiny", remain_quota=100)
    assert record["name"] == "tiny" and record["remain_quota"] == 100
    assert gatecheck.key(record["id"]) == record
    assert gatecheck.key(987654) is None
    assert gatecheck.key("demo-enabled") == gatecheck.demo_key
    assert any(k["id"] == record["id"] for k in gatecheck.all_keys())
    models = client(gatecheck, "sk-" + record["key"]).models.list()
    assert len(models.data) > 0


def test_faults_are_listed_removed_and_cleared(gatecheck: gatecheck.GatecheckServer) -> None:
    first = gatecheck.inject("POST /v1/audio/speech", 503)
    second = gatecheck.fault({"route": "/v1/models", "kind": "delay", "ms": 10, "times": 1})
    assert [f["id"] for f in gatecheck.faults()] == [first, second]
    assert gatecheck.faults()[1]["kind"] == "delay"
    assert gatecheck.remove_fault(first) is True
    assert gatecheck.remove_fault(first) is False
    assert [f["id"] for f in gatecheck.faults()] == [second]
    gatecheck.clear_faults()
    assert gatecheck.faults() == []


def test_the_journal_shows_headers_and_form_fields(gatecheck: gatecheck.GatecheckServer) -> None:
    wav = a_wav()
    client(gatecheck, gatecheck.demo_key).audio.transcriptions.create(
        model="whisper-1", file=("talk.wav", wav, "audio/wav"), language="fr"
    )
    (entry,) = gatecheck.requests()
    assert entry["headers"]["authorization"] == "Bearer ***"
    assert gatecheck.demo_key not in str(entry)
    assert entry["headers"]["content-type"].startswith("multipart/form-data")
    form = {part["name"]: part for part in entry["form"]}
    assert form["model"]["value"] == "whisper-1"
    assert form["language"]["value"] == "fr"
    assert (form["file"]["filename"], form["file"]["size"], form["file"]["content_type"]) == (
        "talk.wav",
        len(wav),
        "audio/wav",
    )
    assert gatecheck.received_requests() == gatecheck.requests()


def test_a_scripted_stream_is_what_the_sdk_reads(gatecheck: gatecheck.GatecheckServer) -> None:
    gatecheck.script_stream(
        "POST /v1/audio/speech",
        [
            {"event": "speech.audio.delta", "data": {"type": "speech.audio.delta", "audio": "AAAA"}},
            {"event": "speech.audio.done", "data": {"type": "speech.audio.done", "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
        ],
        gap_ms=1,
        times=1,
    )
    with client(gatecheck, gatecheck.demo_key).audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts", voice="alloy", input="hi", stream_format="sse"
    ) as response:
        text = response.read().decode()
    assert text.count("speech.audio.delta") == 2 and "AAAA" in text, text


@pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")
def test_state_round_trips_and_a_video_outcome_is_forced(gatecheck: gatecheck.GatecheckServer) -> None:
    videos = client(gatecheck, gatecheck.demo_key).videos
    created = videos.create(model="sora-2", prompt="a calm lake")
    saved = gatecheck.state()
    assert any(k["id"] == 1 for k in saved["keys"])
    gatecheck.set_video_outcome(created.id, "failed", code="content_policy_violation", message="no", immediate=True)
    assert videos.retrieve(created.id).status == "failed"
    gatecheck.load_state(saved)
    assert videos.retrieve(created.id).status in ("queued", "in_progress")
    assert gatecheck.callbacks() == []
    clock = gatecheck.clock()
    assert clock["mode"] == "virtual" and clock["poll_advance"] is True


def test_the_asyncio_form_drives_the_same_mock(gatecheck: gatecheck.GatecheckServer) -> None:
    async def scenario() -> None:
        aio = gatecheck.aio
        before = (await aio.clock())["now_ms"]
        assert (await aio.advance(2))["now_ms"] == before + 2000
        record = await aio.add_key(name="async")
        assert (await aio.key(record["id"])) == record
        fault = await aio.inject("/v1/models", 500, times=1)
        assert [f["id"] for f in await aio.faults()] == [fault]
        await aio.reset()
        assert await aio.requests() == []

    asyncio.run(scenario())


def test_an_async_server_starts_and_stops() -> None:
    async def scenario() -> None:
        async with await gatecheck.AsyncGatecheckServer.start(profile="new-api") as server:
            assert server.ready["profile"] == "new-api"
            assert (await server.clock())["mode"] == "virtual"

    asyncio.run(scenario())
