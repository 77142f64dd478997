"""A pytest fixture that runs `gatecheck serve` for the test session.

It starts the binary on a free port with `--ready-json`, reads the one JSON line it prints once
listening (base URL, demo access token and user id, labelled keys), and stops it at the end.
The binary is `$GATECHECK_BIN`, else `gatecheck` on the PATH (`cargo install --path
crates/gatecheck`). Copy this file into your project's tests/ to use it.
"""

import json
import os
import selectors
import subprocess

import pytest

READY_TIMEOUT_SECONDS = 30


@pytest.fixture(scope="session")
def gatecheck():
    """The ready object of a running mock: `base_url`, `demo_key`, `access_token`, `user_id`,
    `keys` (each with `id`, `label`, `key`, `state`)."""
    binary = os.environ.get("GATECHECK_BIN", "gatecheck")
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--ready-json"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout=READY_TIMEOUT_SECONDS):
                raise RuntimeError("gatecheck serve printed no ready line in time")
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"gatecheck serve exited with {proc.wait()} before it was ready")
        yield json.loads(line)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def key(gatecheck):
    """The `sk-...` secret of the demo key with this label, e.g. `key("demo-disabled")`."""

    def by_label(label):
        return next(k["key"] for k in gatecheck["keys"] if k["label"] == label)

    return by_label
