"""Third-party new-api clients against the mock: LiteLLM (as an SDK: `litellm.speech`,
`transcription`, `image_generation`, `video_generation` with `api_base` at the mock) and
newapi-python (the dashboard API: `/api/token/`, the logged-in user's routes).

The suite runs only on loopback: LiteLLM reads its bundled model cost map (never fetches it),
sends no telemetry, and every connection it opens is held to loopback (`socket` is guarded
before LiteLLM is imported; an attempt elsewhere fails the test that made it and the session).
A venv with LiteLLM's compromised `.pth` (`litellm_init.pth`, 1.82.8, 2026-03) stops the run
before anything is imported.
"""

import ipaddress
import os
import site
import socket
import sys
from pathlib import Path

import pytest

# Before LiteLLM is imported (its import reads these).
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["LITELLM_TELEMETRY"] = "False"
os.environ["LITELLM_LOG"] = "ERROR"
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")
for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "HTTPS_PROXY", "HTTP_PROXY"):
    os.environ.pop(var, None)
os.environ["NO_PROXY"] = "127.0.0.1,localhost,::1"

COMPROMISED_PTH = "litellm_init.pth"


def site_dirs():
    """The interpreter's site-packages folders (the venv's, and the user's if enabled)."""
    dirs = set(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.add(site.getusersitepackages())
    dirs.update(p for p in sys.path if p.endswith("site-packages"))
    return sorted(Path(d) for d in dirs if Path(d).is_dir())


def compromised_pth():
    """Every `litellm_init.pth` in the interpreter's site-packages."""
    return [d / COMPROMISED_PTH for d in site_dirs() if (d / COMPROMISED_PTH).exists()]


def pytest_sessionstart(session):
    found = compromised_pth()
    if found:
        pytest.exit(
            f"{', '.join(map(str, found))}: the 2026-03 LiteLLM compromise's startup hook is in "
            "this venv; it ran when this interpreter started. Remove the venv, rotate what it "
            "could read, and install the pinned requirements.txt again.",
            returncode=3,
        )


# --- loopback only --------------------------------------------------------------------------
ATTEMPTS: list = []
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def loopback(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in ("localhost", "localhost.", ""):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def refuse(what, host):
    ATTEMPTS.append(f"{what} {host}")
    raise OSError(f"tests/clients: a connection to {host!r} was refused (loopback only)")


def guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not loopback(address[0]):
        refuse("connect", address[0])
    return _connect(self, address)


def guarded_connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not loopback(address[0]):
        refuse("connect", address[0])
    return _connect_ex(self, address)


def guarded_getaddrinfo(host, *args, **kwargs):
    if host is not None and not loopback(host):
        refuse("resolve", host)
    return _getaddrinfo(host, *args, **kwargs)


socket.socket.connect = guarded_connect
socket.socket.connect_ex = guarded_connect_ex
socket.getaddrinfo = guarded_getaddrinfo


@pytest.fixture(autouse=True)
def no_connection_but_loopback():
    """Fails the test in which a client tried to reach anything but the mock."""
    before = len(ATTEMPTS)
    yield
    assert ATTEMPTS[before:] == [], "a client tried to leave loopback"


def pytest_sessionfinish(session, exitstatus):
    if ATTEMPTS and exitstatus == 0:
        session.exitstatus = 1
        print(f"\ntests/clients: connections refused outside loopback: {ATTEMPTS}", file=sys.stderr)
