"""The plugin's options and failure paths, in pytest sessions of their own (pytester)."""

from __future__ import annotations

import os
import stat
import time

import pytest

USES_THE_FIXTURE = """
def test_uses_it(gatecheck):
    assert gatecheck.ready["profile"] == "{profile}"
def test_uses_it_again(gatecheck):
    pass
"""


def script(pytester: pytest.Pytester, name: str, body: str) -> str:
    path = pytester.path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_mock_that_exits_fails_the_session_with_its_output(pytester: pytest.Pytester) -> None:
    fake = script(pytester, "broken-gatecheck", 'echo "error: port in use: boom" >&2\nexit 3\n')
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="documented"))
    result = pytester.runpytest_subprocess("--gatecheck-bin", fake)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*exited with 3 before it was ready*", "*port in use: boom*"])
    assert result.ret != 0


def test_a_mock_that_never_listens_is_stopped_and_fails_the_session(pytester: pytest.Pytester) -> None:
    fake = script(pytester, "silent-gatecheck", "echo starting >&2\nexec sleep 600\n")
    pytester.makeini("[pytest]\ngatecheck_start_timeout = 1\n")
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="documented"))
    started = time.monotonic()
    result = pytester.runpytest_subprocess("--gatecheck-bin", fake)
    assert time.monotonic() - started < 60
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*was not ready within 1 s and was stopped*", "*starting*"])


def test_a_binary_that_does_not_exist_is_named(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="documented"))
    result = pytester.runpytest_subprocess("--gatecheck-bin", "/nonexistent/gatecheck")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*cannot run /nonexistent/gatecheck*"])


def test_the_profile_and_binary_come_from_the_ini_file(pytester: pytest.Pytester) -> None:
    import gatecheck

    os.symlink(gatecheck.bin_path(), pytester.path / "gc")
    pytester.makeini("[pytest]\ngatecheck_bin = ./gc\ngatecheck_profile = new-api\n")
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="new-api"))
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2)


def test_the_command_line_profile_wins_over_the_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ngatecheck_profile = new-api\n")
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="documented"))
    result = pytester.runpytest_subprocess("--gatecheck-profile", "documented")
    result.assert_outcomes(passed=2)


def test_a_bad_profile_in_the_ini_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ngatecheck_profile = newapi\n")
    pytester.makepyfile(USES_THE_FIXTURE.format(profile="documented"))
    result = pytester.runpytest_subprocess()
    result.stderr.fnmatch_lines(["*gatecheck_profile = 'newapi'*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_xdist_starts_one_mock_per_worker(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os, time
        def test_a(gatecheck_server):
            open(os.environ["PYTEST_XDIST_WORKER"] + "-" + str(gatecheck_server.ready["pid"]), "w").close()
            time.sleep(0.3)
        def test_b(gatecheck_server):
            open(os.environ["PYTEST_XDIST_WORKER"] + "-" + str(gatecheck_server.ready["pid"]), "w").close()
            time.sleep(0.3)
        def test_c(gatecheck_server):
            open(os.environ["PYTEST_XDIST_WORKER"] + "-" + str(gatecheck_server.ready["pid"]), "w").close()
            time.sleep(0.3)
        def test_d(gatecheck_server):
            open(os.environ["PYTEST_XDIST_WORKER"] + "-" + str(gatecheck_server.ready["pid"]), "w").close()
        """
    )
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "load")
    result.assert_outcomes(passed=4)
    marks = {p.name for p in pytester.path.iterdir() if p.name.startswith("gw")}
    workers = {m.split("-")[0] for m in marks}
    pids = {m.split("-")[1] for m in marks}
    assert workers == {"gw0", "gw1"}, marks
    assert len(pids) == 2, marks
