"""Mocks of a test's own: the `make_gatecheck` factory and the `gatecheck`
marker, as pytest-httpserver's `make_httpserver`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import gatecheck

#: The repository's fixture files (the tests run from the checkout's python/tests).
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_the_factory_starts_mocks_with_other_options(
    make_gatecheck, gatecheck_server: gatecheck.GatecheckServer
) -> None:
    real = make_gatecheck(profile="new-api", clock="real")
    assert real.ready["profile"] == "new-api"
    assert real.clock()["mode"] == "real" and real.clock()["poll_advance"] is False
    assert real.base_url != gatecheck_server.base_url
    other = make_gatecheck(clock="virtual:1000")
    assert other.clock()["now"] == 1000


def test_the_factory_takes_a_fixtures_folder(make_gatecheck, tmp_path) -> None:
    video = json.loads((FIXTURES / "video.json").read_text())
    video["poll_after_ms"] = 2000
    (tmp_path / "video.json").write_text(json.dumps(video))
    server = make_gatecheck(fixtures=tmp_path, poll_advance=False)
    import openai

    response = openai.OpenAI(base_url=server.base_url + "/v1", api_key=server.demo_key, max_retries=0)
    raw = response.videos.with_raw_response.create(model="sora-2", prompt="a lake")
    assert raw.headers["openai-poll-after-ms"] == "2000"


@pytest.mark.gatecheck(profile="new-api")
def test_the_marker_gives_the_test_a_mock_of_its_own(
    gatecheck: gatecheck.GatecheckServer, gatecheck_server: gatecheck.GatecheckServer
) -> None:
    assert gatecheck is not gatecheck_server
    assert gatecheck.ready["profile"] == "new-api"


def test_the_factorys_mocks_are_stopped_after_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os
        def test_one(make_gatecheck):
            server = make_gatecheck()
            open("pid", "w").write(str(server.ready["pid"]))
        def test_marker_with_a_positional_argument_is_refused(gatecheck):
            pass
        test_marker_with_a_positional_argument_is_refused = __import__("pytest").mark.gatecheck("x")(
            test_marker_with_a_positional_argument_is_refused
        )
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*keyword arguments only*"])
    pid = int((pytester.path / "pid").read_text())
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1][0] in "ZX"
