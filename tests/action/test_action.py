"""The GitHub Action (action.yml at the repository's root), run here as GitHub runs a node20
action: its `main` with the inputs as INPUT_<NAME> variables (defaults filled in), then, when
the job ends, its `post` with the state the main step saved (STATE_<name>), and
GITHUB_OUTPUT, GITHUB_STATE and GITHUB_STEP_SUMMARY as files. The two examples of action.yml's
header run as written, the mock standing in for the deployment (only `version`, a download,
becomes `gatecheck-bin`).

Needs PyYAML, node, and a gatecheck binary: `$GATECHECK_BIN`, else the installed
`gatecheck-harness` package's (`.ci/packages` runs it in the venv where the wheel is installed).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION_TEXT = (ROOT / "action.yml").read_text()
ACTION = yaml.safe_load(ACTION_TEXT)


def binary() -> str:
    if os.environ.get("GATECHECK_BIN"):
        return os.environ["GATECHECK_BIN"]
    import gatecheck

    return gatecheck.bin_path()


def header_examples() -> List[Dict[str, str]]:
    """The `with:` of each `uses:` step in action.yml's header comment."""
    lines = []
    for line in ACTION_TEXT.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("#   "):
            lines.append(line[4:].split("  # ")[0].rstrip())
    steps = yaml.safe_load("\n".join(lines))
    return [
        {k: str(v) for k, v in step["with"].items()}
        for step in steps
        if str(step.get("uses", "")).startswith("gatecheck/gatecheck@")
    ]


class Run:
    """One run of the action: its outputs, whether main failed, the job summary, the log."""

    def __init__(self, outputs: Dict[str, str], failed: bool, summary: str, log: str, state: Dict[str, str]):
        self.outputs = outputs
        self.failed = failed
        self.summary = summary
        self.log = log
        self.state = state


def files(path: Path) -> Dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def run_action(tmp_path: Path, inputs: Dict[str, str], env_extra: Optional[Dict[str, str]] = None) -> Run:
    declared = ACTION["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    assert ACTION["runs"]["using"] == "node20"
    tmp_path.mkdir(parents=True, exist_ok=True)
    output, state, summary = tmp_path / "output", tmp_path / "state", tmp_path / "step-summary.md"
    for f in (output, state, summary):
        f.write_text("")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATECHECK_", "INPUT_", "STATE_"))}
    for name, spec in declared.items():
        env["INPUT_" + name.upper().replace(" ", "_")] = inputs.get(name, str(spec.get("default", "")))
    env.update(
        GITHUB_OUTPUT=str(output),
        GITHUB_STATE=str(state),
        GITHUB_STEP_SUMMARY=str(summary),
        RUNNER_TEMP=str(runner_temp),
        **(env_extra or {}),
    )
    done = subprocess.run(
        ["node", str(ROOT / ACTION["runs"]["main"])], env=env, capture_output=True, text=True, timeout=300
    )
    log = f"--- main (exit {done.returncode})\n{done.stdout}{done.stderr}"
    outputs = files(output)
    assert set(outputs) <= set(ACTION["outputs"]), f"outputs the action does not declare: {set(outputs) - set(ACTION['outputs'])}"
    return Run(outputs, done.returncode != 0, summary.read_text(), log, files(state))


def run_post(run: Run) -> str:
    """The post step, with the main step's state."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATECHECK_", "INPUT_", "STATE_"))}
    env.update({f"STATE_{k}": v for k, v in run.state.items()})
    done = subprocess.run(
        ["node", str(ROOT / ACTION["runs"]["post"])], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1][0] not in "ZX"
    except OSError:
        return False


def as_written(example: Dict[str, str], values: Dict[str, str]) -> Dict[str, str]:
    """A header example's inputs, its `${{ vars.X }}` / `${{ secrets.X }}` from `values`, its
    `version` (a download) replaced by the local binary."""
    out = {}
    for name, value in example.items():
        if name == "version":
            out["gatecheck-bin"] = binary()
            continue
        out[name] = re.sub(r"\$\{\{\s*(?:vars|secrets)\.(\w+)\s*\}\}", lambda m: values[m.group(1)], value)
    return out


@pytest.fixture
def served(tmp_path: Path):
    """The header's serve example (the new-api profile, a JSON `--fault` argument); the post
    step stops the mock afterwards."""
    run = run_action(tmp_path / "serve", as_written(header_examples()[0], {}))
    assert not run.failed, run.log
    yield run
    run_post(run)


def test_serve_starts_the_mock_in_the_background_and_sets_its_outputs(served: Run) -> None:
    out = served.outputs
    assert out["base-url"].startswith("http://127.0.0.1:")
    assert out["control-url"] == out["base-url"] + "/__mock"
    assert json.loads(Path(out["ready-file"]).read_text())["base_url"] == out["base-url"]
    # The JSON argument arrived whole: the fault it describes is installed.
    with urllib.request.urlopen(out["control-url"] + "/faults", timeout=10) as response:
        (fault,) = json.load(response)
    assert (fault["route"], fault["status"], fault["times"]) == ("POST /v1/videos", 503, 1)
    assert out["demo-key"].startswith("sk-") and out["user-id"] == "1" and out["access-token"]
    request = urllib.request.Request(
        out["base-url"] + "/v1/models", headers={"Authorization": f"Bearer {out['demo-key']}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["data"]
    with urllib.request.urlopen(out["base-url"] + "/__mock/health", timeout=10) as response:
        assert json.load(response)["profile"] == "new-api"
    assert "junit" not in served.outputs


def test_the_post_step_stops_the_mock(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "serve", "gatecheck-bin": binary()})
    assert not run.failed, run.log
    pid = int(run.state["pid"])
    assert alive(pid)
    assert "stopped" in run_post(run)
    deadline = time.monotonic() + 5
    while alive(pid):
        assert time.monotonic() < deadline, "the mock outlived the post step"
        time.sleep(0.05)


def test_the_headers_check_example_passes_as_written(served: Run, tmp_path: Path) -> None:
    out = served.outputs
    values = {
        "GATEWAY_URL": out["base-url"],
        "GATEWAY_KEY": out["demo-key"],
        "GATEWAY_KEY_ID": "1",
        "GATEWAY_ACCESS_TOKEN": out["access-token"],
        "GATEWAY_USER_ID": out["user-id"],
    }
    run = run_action(tmp_path / "check", as_written(header_examples()[1], values))
    assert not run.failed, run.log
    assert run.outputs["exit-code"] == "0"
    assert run.summary.startswith("## gatecheck check: ✅ passed"), run.summary
    assert Path(run.outputs["junit"]).read_text().startswith("<?xml")
    assert Path(run.outputs["html"]).read_text().startswith("<!DOCTYPE html>")
    assert out["demo-key"] not in run.summary and out["access-token"] not in run.summary
    assert out["demo-key"] not in run.log


def test_check_fails_the_step_on_contract_failures_and_lists_them(served: Run, tmp_path: Path) -> None:
    out = served.outputs
    # The new-api mock checked against the documented contract: its framing differs.
    run = run_action(
        tmp_path,
        {
            "mode": "check",
            "gatecheck-bin": binary(),
            "expect": "documented",
            "base-url": out["base-url"],
            "api-key": out["demo-key"],
            "access-token": out["access-token"],
            "user-id": out["user-id"],
            "key-id": "1",
        },
    )
    assert run.failed, run.log
    assert run.outputs["exit-code"] == "1"
    assert run.summary.startswith("## gatecheck check: ❌ failed"), run.summary
    assert "| failed | `" in run.summary
    assert "<details><summary>Reproduce</summary>" in run.summary
    assert out["demo-key"] not in run.summary


def test_a_binary_that_does_not_run_fails_the_install_step(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "serve", "gatecheck-bin": str(tmp_path / "nonexistent")})
    assert run.failed
    assert "does not run" in run.log


def test_an_unknown_mode_fails_the_install_step(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "check-it", "gatecheck-bin": binary()})
    assert run.failed
    assert "mode must be serve or check" in run.log


def test_without_a_binary_nothing_is_installed_and_the_error_says_how(tmp_path: Path) -> None:
    # A PATH with only a stranger's `gatecheck` (PyPI's other project has a script of that
    # name), and a pip that records being called.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gatecheck").write_text("#!/bin/sh\necho 'gatecheck, an LLM evaluation harness'\n")
    (fake / "gatecheck").chmod(0o755)
    called = tmp_path / "pip-called"
    for name in ("pip", "pip3"):
        (fake / name).write_text(f"#!/bin/sh\ntouch {called}\n")
        (fake / name).chmod(0o755)
    path = f"{fake}:{os.environ['PATH']}"
    run = run_action(tmp_path / "a", {"mode": "serve"}, {"PATH": path})
    assert run.failed
    assert "no gatecheck binary" in run.log and "is another program" in run.log, run.log
    assert "gatecheck-bin" in run.log and "gatecheck-harness==X.Y.Z" in run.log
    assert not called.exists() and not (tmp_path / "a" / "runner-temp" / "gatecheck-action" / "venv").exists()
    for version in ("latest", ">=0.1", "0.1.*", "0.1.0; rm -rf /"):
        run = run_action(tmp_path / "v", {"mode": "serve", "version": version}, {"PATH": path})
        assert run.failed and "an exact version of gatecheck-harness" in run.log, (version, run.log)
        assert not (tmp_path / "v" / "runner-temp" / "gatecheck-action" / "venv").exists()


def test_profile_is_refused_in_check_mode(tmp_path: Path) -> None:
    run = run_action(
        tmp_path, {"mode": "check", "gatecheck-bin": binary(), "base-url": "http://127.0.0.1:9", "profile": "new-api"}
    )
    assert run.failed
    assert "expect: documented or new-api" in run.log


def test_the_action_never_names_another_package() -> None:
    script = (ROOT / "scripts" / "action.sh").read_text()
    installs = re.findall(r"pip install(?:[^\n\\]|\\\n)*", script)
    assert installs, "the script installs nothing?"
    for command in installs:
        # Only gatecheck-harness, at an exact version (the install, and the error's advice).
        assert re.search(r"gatecheck-harness==(\$version\b|X\.Y\.Z)", command), command
