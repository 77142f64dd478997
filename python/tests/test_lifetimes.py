"""Lifetimes: a mock whose parent is killed with SIGKILL exits and leaves no temp
folder; `stop()` returns at once while a client waits in a `delay` fault; `reset()` ends a
pending delay, and leaves the cut request out of the fresh journal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import gatecheck

PARENT = """
import json, sys, time
import gatecheck
server = gatecheck.GatecheckServer.start()
print(json.dumps({"pid": server.ready["pid"], "dir": server._workdir}), flush=True)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] not in "ZX"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def test_a_mock_whose_parent_is_sigkilled_exits_and_leaves_no_folder() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        started = json.loads(parent.stdout.readline())
        assert alive(started["pid"]) and os.path.isdir(started["dir"])
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        killed = time.monotonic()
        while alive(started["pid"]) or os.path.exists(started["dir"]):
            assert time.monotonic() - killed < 5, "the mock outlived its parent by 5 s"
            time.sleep(0.05)
    finally:
        parent.kill()
        parent.wait()


def get_later(url: str, out: dict) -> threading.Thread:
    def run() -> None:
        started = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                out["status"] = response.status
        except urllib.error.HTTPError as e:  # an answer all the same (503 mock_reset)
            out["status"] = e.code
        except Exception as e:  # the dropped connection of a stopped mock
            out["error"] = repr(e)
        out["took"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.3)  # the request is in the delay by now
    return thread


def test_stop_returns_at_once_during_a_delay_fault() -> None:
    server = gatecheck.GatecheckServer.start()
    server.fault({"route": "/api/models", "kind": "delay", "ms": 5000})
    out: dict = {}
    thread = get_later(server.base_url + "/api/models", out)
    stopping = time.monotonic()
    server.stop()
    took = time.monotonic() - stopping
    thread.join(10)
    assert took < 1.5, f"stop() took {took:.2f} s"
    assert "error" in out, out


def test_reset_ends_a_pending_delay(gatecheck: gatecheck.GatecheckServer) -> None:
    gatecheck.fault({"route": "/api/models", "kind": "delay", "ms": 5000})
    out: dict = {}
    thread = get_later(gatecheck.base_url + "/api/models", out)
    gatecheck.reset()
    thread.join(10)
    # Answered at once, unserved: it belongs to the state before the reset.
    assert out.get("status") == 503, out
    assert out["took"] < 2, out
    # The cut request is not in the fresh journal (it was, first in the next test's).
    assert gatecheck.requests() == []
