"""The installed `gatecheck` package's pytest fixtures, with the official OpenAI Python SDK.

Run from a venv where the wheel is installed: `pytest python/tests -n 2` (`.ci/packages`).
"""

from __future__ import annotations

import json
import urllib.request

import openai
import pytest

import gatecheck


def client(server: gatecheck.GatecheckServer, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url + "/v1", api_key=api_key, max_retries=0)


@pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")
def test_a_video_task_completes_when_the_clock_is_advanced(gatecheck: gatecheck.GatecheckServer) -> None:
    videos = client(gatecheck, gatecheck.demo_key).videos
    created = videos.create(model="sora-2", prompt="a calm lake at dawn")
    assert created.status == "queued"
    assert videos.retrieve(created.id).status in ("queued", "in_progress")
    gatecheck.advance(600)
    done = videos.retrieve(created.id)
    assert done.status == "completed", done
    assert done.progress == 100


def test_a_disabled_key_is_refused_with_401(gatecheck: gatecheck.GatecheckServer) -> None:
    with pytest.raises(openai.AuthenticationError) as refused:
        client(gatecheck, gatecheck.key("demo-disabled")).images.generate(
            model="gpt-image-1", prompt="a lighthouse", size="1024x1024"
        )
    assert refused.value.status_code == 401


def test_an_unknown_key_label_names_the_labels(gatecheck: gatecheck.GatecheckServer) -> None:
    with pytest.raises(KeyError, match="demo-disabled"):
        gatecheck.key("no-such-label")


# The next two run in this order on one worker under `-n 2 --dist loadgroup` (xdist sends
# tests to workers one by one otherwise).
@pytest.mark.xdist_group("fault")
def test_1_an_injected_fault_answers_the_sdk(gatecheck: gatecheck.GatecheckServer) -> None:
    gatecheck.inject("POST /v1/audio/speech", 503, times=5)
    with pytest.raises(openai.InternalServerError) as refused:
        client(gatecheck, gatecheck.demo_key).audio.speech.create(
            model="tts-1", voice="alloy", input="hello"
        )
    assert refused.value.status_code == 503


@pytest.mark.xdist_group("fault")
def test_2_the_next_test_does_not_see_the_fault(gatecheck: gatecheck.GatecheckServer) -> None:
    speech = client(gatecheck, gatecheck.demo_key).audio.speech.create(
        model="tts-1", voice="alloy", input="hello"
    )
    assert len(speech.content) > 0
    assert [r["status"] for r in gatecheck.requests()] == [200]


def test_the_journal_holds_what_the_sdk_sent(gatecheck: gatecheck.GatecheckServer) -> None:
    client(gatecheck, gatecheck.demo_key).models.list()
    calls = gatecheck.requests()
    assert [(c["method"], c["path"], c["status"]) for c in calls] == [("GET", "/v1/models", 200)]


def test_the_access_token_lists_the_demo_keys(gatecheck: gatecheck.GatecheckServer) -> None:
    request = urllib.request.Request(
        gatecheck.base_url + "/api/token/?p=1&size=10",
        headers={"Authorization": gatecheck.access_token, "New-Api-User": str(gatecheck.user_id)},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["success"] is True


def test_the_session_server_is_the_function_fixtures(
    gatecheck_server: gatecheck.GatecheckServer, gatecheck: gatecheck.GatecheckServer
) -> None:
    assert gatecheck is gatecheck_server
    assert gatecheck.ready["profile"] == "documented"
    assert gatecheck.ready["clock"] == "virtual"
