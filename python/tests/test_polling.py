"""The SDKs' own polling ends on the fixtures' virtual clock: polls move it
(docs/mock.md, "Polls that move the clock"), while a test that advances it by hand sees
exactly the times it set."""

from __future__ import annotations

import time
import urllib.request

import openai
import pytest

import gatecheck

pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")


def client(server: gatecheck.GatecheckServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url + "/v1", api_key=server.demo_key, max_retries=0)


def test_the_sdks_create_and_poll_completes_in_real_seconds(gatecheck: gatecheck.GatecheckServer) -> None:
    started = time.monotonic()
    video = client(gatecheck).videos.create_and_poll(model="sora-2", prompt="a calm lake at dawn", seconds="8")
    took = time.monotonic() - started
    assert video.status == "completed", video
    assert video.progress == 100
    assert took < 5, f"create_and_poll took {took:.1f} s"
    polls = [r for r in gatecheck.requests() if r["method"] == "GET"]
    assert 2 <= len(polls) <= 6, [r["path"] for r in polls]


def test_a_poll_loop_that_honours_the_header_ends(gatecheck: gatecheck.GatecheckServer) -> None:
    created = client(gatecheck).videos.create(model="sora-2", prompt="a lighthouse")
    url = f"{gatecheck.base_url}/v1/videos/{created.id}"
    started = time.monotonic()
    for _ in range(20):
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {gatecheck.demo_key}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            status = __import__("json").load(response)["status"]
            wait_ms = int(response.headers["openai-poll-after-ms"])
        if status == "completed":
            break
        time.sleep(wait_ms / 1000)
    assert status == "completed"
    assert time.monotonic() - started < 5


def test_a_clock_advanced_by_hand_is_exact_between_polls(gatecheck: gatecheck.GatecheckServer) -> None:
    videos = client(gatecheck).videos
    created = videos.create(model="sora-2", prompt="a calm lake", seconds="4")
    start = gatecheck.clock()["now_ms"]
    assert videos.retrieve(created.id).status == "queued"
    gatecheck.advance(4)
    assert videos.retrieve(created.id).status == "queued"  # queued for 5 s
    gatecheck.advance(2)
    assert videos.retrieve(created.id).status == "in_progress"
    assert gatecheck.clock()["now_ms"] == start + 6000
    gatecheck.advance(600)
    assert videos.retrieve(created.id).status == "completed"


@pytest.mark.gatecheck(poll_advance=False)
def test_without_poll_advance_polls_never_move_the_clock(gatecheck: gatecheck.GatecheckServer) -> None:
    videos = client(gatecheck).videos
    created = videos.create(model="sora-2", prompt="a calm lake")
    start = gatecheck.clock()["now_ms"]
    for _ in range(3):
        assert videos.retrieve(created.id).status == "queued"
    assert gatecheck.clock() == {"mode": "virtual", "now": start // 1000, "now_ms": start, "poll_advance": False}
