"""LiteLLM as an SDK against the mock (`api_base` = the mock's `/v1`, provider `openai/`):
the answers it parses, the errors it maps, the requests the mock journaled."""

import base64
import io
import struct
import wave
from importlib.metadata import version

import litellm
import pytest

from conftest import compromised_pth, site_dirs

litellm.telemetry = False
litellm.suppress_debug_info = True


def api(gatecheck, key=None):
    return {"api_base": gatecheck.base_url + "/v1", "api_key": key or gatecheck.demo_key, "num_retries": 0}


def wav(seconds=1.0, rate=16000):
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", 6000 if (i // 18) % 2 else -6000) for i in range(int(seconds * rate))))
    return buf.getvalue()


def test_the_pinned_litellm_without_the_compromised_pth():
    assert version("litellm") == "1.108.5"
    assert site_dirs(), "no site-packages found to look in"
    assert compromised_pth() == []


def test_speech_is_an_mp3(gatecheck):
    audio = litellm.speech(model="openai/tts-1", voice="alloy", input="hello from litellm", **api(gatecheck))
    data = audio.content
    assert data[:3] == b"ID3" or (data[0] == 0xFF and data[1] & 0xE0 == 0xE0), data[:4]
    (sent,) = gatecheck.requests()
    assert (sent["method"], sent["path"], sent["status"]) == ("POST", "/v1/audio/speech", 200)
    assert sent["headers"]["authorization"] == "Bearer ***"
    assert '"model":"tts-1"' in sent["body"].replace(" ", "")


def test_transcription_sends_the_file_and_reads_the_text(gatecheck):
    out = litellm.transcription(model="openai/whisper-1", file=("a.wav", wav()), language="en", **api(gatecheck))
    assert isinstance(out.text, str) and out.text
    (sent,) = gatecheck.requests()
    assert sent["path"] == "/v1/audio/transcriptions"
    parts = {p["name"]: p for p in sent["form"]}
    assert parts["model"]["value"] == "whisper-1"
    assert parts["language"]["value"] == "en"
    assert parts["file"]["filename"] == "a.wav" and parts["file"]["size"] == len(wav())


def test_image_generation_answers_a_png(gatecheck):
    out = image(gatecheck)
    (first,) = out.data
    png = base64.b64decode(first.b64_json)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1024, 1024)


def test_a_video_from_queued_to_its_mp4(gatecheck):
    created = litellm.video_generation(model="openai/sora-2", prompt="a calm lake", **api(gatecheck))
    assert created.status == "queued"
    gatecheck.advance(600)
    done = litellm.video_status(video_id=created.id, custom_llm_provider="openai", **api(gatecheck))
    assert done.status == "completed" and done.progress == 100
    mp4 = litellm.video_content(video_id=created.id, custom_llm_provider="openai", **api(gatecheck))
    assert mp4[4:8] == b"ftyp", mp4[:16]
    paths = [r["path"] for r in gatecheck.requests()]
    assert paths[0] == "/v1/videos" and paths[-1].endswith("/content"), paths


def image(gatecheck, key=None, **more):
    return litellm.image_generation(
        model="openai/gpt-image-1", prompt="a lighthouse", size="1024x1024", **api(gatecheck, key), **more
    )


def test_a_disabled_key_is_litellms_authentication_error(gatecheck):
    with pytest.raises(litellm.AuthenticationError) as e:
        image(gatecheck, gatecheck.key("demo-disabled"))
    assert e.value.status_code == 401
    assert [r["status"] for r in gatecheck.requests()] == [401]


def test_a_503_is_retried_by_the_openai_client_then_litellms_service_unavailable(gatecheck):
    # LiteLLM hands the call to the OpenAI SDK's client, whose own retries (2, after the
    # mock's Retry-After: 1) answer a 503 that fires once; one that stays is LiteLLM's
    # ServiceUnavailableError after the three attempts.
    gatecheck.inject("POST /v1/images/generations", 503, times=1)
    assert image(gatecheck).data
    assert [r["status"] for r in gatecheck.requests()] == [503, 200]
    gatecheck.reset()
    gatecheck.inject("POST /v1/images/generations", 503)
    with pytest.raises(litellm.ServiceUnavailableError) as e:
        image(gatecheck)
    assert e.value.status_code == 503
    assert [r["status"] for r in gatecheck.requests()] == [503, 503, 503]


def test_speech_errors_are_the_openai_sdks_and_it_retries_a_503(gatecheck):
    # litellm.speech hands back the OpenAI SDK's own exceptions (not LiteLLM's), and its
    # client's retries answer a 503 that fires once, as for images.
    import openai

    with pytest.raises(openai.AuthenticationError):
        litellm.speech(model="openai/tts-1", voice="alloy", input="hi", **api(gatecheck, gatecheck.key("demo-disabled")))
    gatecheck.reset()
    gatecheck.inject("POST /v1/audio/speech", 503, times=1)
    assert litellm.speech(model="openai/tts-1", voice="alloy", input="hi", **api(gatecheck)).content
    assert [r["status"] for r in gatecheck.requests()] == [503, 200]


def test_a_model_the_key_may_not_use_is_refused(gatecheck):
    key = gatecheck.key("demo-model-restricted")  # tts-1 and whisper-1 only
    with pytest.raises(litellm.exceptions.APIError) as e:
        image(gatecheck, key)
    assert e.value.status_code in (401, 403), e.value
    assert litellm.speech(model="openai/tts-1", voice="alloy", input="hi", **api(gatecheck, key)).content


def test_the_loopback_guard_refuses_any_other_host():
    import socket

    import conftest

    before = len(conftest.ATTEMPTS)
    try:
        with socket.socket() as s, pytest.raises(OSError, match="loopback only"):
            s.connect(("192.0.2.1", 443))
        with pytest.raises(OSError, match="loopback only"):
            socket.getaddrinfo("raw.githubusercontent.com", 443)
        assert conftest.ATTEMPTS[before:] == ["connect 192.0.2.1", "resolve raw.githubusercontent.com"]
    finally:
        del conftest.ATTEMPTS[before:]  # planted here, not a client's
