"""The GitHub Action (action.yml at the repository's root), run here as GitHub runs a composite
action: each step's `if`, `env` and `run`, with `${{ inputs.* }}`, `${{ steps.*.outputs.* }}`
and `${{ github.action_path }}` filled in, `bash -e -o pipefail`, and GITHUB_OUTPUT and
GITHUB_STEP_SUMMARY as files.

Needs PyYAML, and a gatecheck binary: `$GATECHECK_BIN`, else the installed `gatecheck`
package's (`.ci/packages` runs it in the venv where the wheel is installed).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.request
from pathlib import Path
from typing import Dict, Optional

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def binary() -> str:
    if os.environ.get("GATECHECK_BIN"):
        return os.environ["GATECHECK_BIN"]
    import gatecheck

    return gatecheck.bin_path()


class Run:
    """One run of the action: its outputs, the steps' outputs, the job summary, the log."""

    def __init__(self, outputs: Dict[str, str], failed: Optional[str], summary: str, log: str):
        self.outputs = outputs
        self.failed = failed
        self.summary = summary
        self.log = log


def run_action(tmp_path: Path, inputs: Dict[str, str]) -> Run:
    declared = ACTION["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values = {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in declared.items()}
    steps: Dict[str, Dict[str, str]] = {}
    summary = tmp_path / "step-summary.md"
    summary.touch()
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)

    def evaluate(expression: str) -> str:
        parts = expression.split(".", 1)
        if parts[0] == "inputs":
            return values[parts[1]]
        if expression == "github.action_path":
            return str(ROOT)
        if parts[0] == "steps":
            step, _, name = parts[1].split(".", 2)
            return steps.get(step, {}).get(name, "")
        raise AssertionError(f"the test does not know the expression {expression!r}")

    def substitute(text: str) -> str:
        return EXPRESSION.sub(lambda m: evaluate(m.group(1)), str(text))

    def condition(text: str) -> bool:
        m = re.fullmatch(r"\s*([\w.-]+)\s*==\s*'([^']*)'\s*", text)
        assert m, f"the test does not know the condition {text!r}"
        return evaluate(m.group(1)) == m.group(2)

    log = []
    failed = None
    for step in ACTION["runs"]["steps"]:
        assert ACTION["runs"]["using"] == "composite" and step["shell"] == "bash"
        if "if" in step and not condition(step["if"]):
            continue
        output = tmp_path / f"output-{step['id']}"
        output.write_text("")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATECHECK_")}
        env.update({k: substitute(v) for k, v in step.get("env", {}).items()})
        env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary), RUNNER_TEMP=str(runner_temp))
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", substitute(step["run"])],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        log.append(f"--- {step['id']} (exit {done.returncode})\n{done.stdout}{done.stderr}")
        steps[step["id"]] = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        if done.returncode != 0:
            failed = step["id"]
            break
    outputs = {name: substitute(spec["value"]) for name, spec in ACTION["outputs"].items()}
    return Run(outputs, failed, summary.read_text(), "\n".join(log))


@pytest.fixture
def served(tmp_path: Path):
    """The action in serve mode with the new-api profile; the mock is stopped afterwards."""
    run = run_action(tmp_path, {"mode": "serve", "gatecheck-bin": binary(), "profile": "new-api"})
    assert run.failed is None, run.log
    yield run
    os.kill(int(run.outputs["pid"]), signal.SIGTERM)


def test_serve_starts_the_mock_in_the_background_and_sets_its_outputs(served: Run) -> None:
    out = served.outputs
    assert out["base-url"].startswith("http://127.0.0.1:")
    assert out["demo-key"].startswith("sk-") and out["user-id"] == "1" and out["access-token"]
    request = urllib.request.Request(
        out["base-url"] + "/v1/models", headers={"Authorization": f"Bearer {out['demo-key']}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert json.load(response)["data"]
    with urllib.request.urlopen(out["base-url"] + "/__mock/health", timeout=10) as response:
        assert json.load(response)["profile"] == "new-api"
    assert served.outputs["junit"] == ""


def test_check_passes_on_a_conforming_target_and_writes_the_summary(served: Run, tmp_path: Path) -> None:
    out = served.outputs
    run = run_action(
        tmp_path,
        {
            "mode": "check",
            "gatecheck-bin": binary(),
            "profile": "new-api",
            "base-url": out["base-url"],
            "api-key": out["demo-key"],
            "access-token": out["access-token"],
            "user-id": out["user-id"],
            "key-id": "1",
        },
    )
    assert run.failed is None, run.log
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
            "profile": "documented",
            "base-url": out["base-url"],
            "api-key": out["demo-key"],
            "access-token": out["access-token"],
            "user-id": out["user-id"],
            "key-id": "1",
        },
    )
    assert run.failed == "check", run.log
    assert run.outputs["exit-code"] == "1"
    assert run.summary.startswith("## gatecheck check: ❌ failed"), run.summary
    assert "| failed | `" in run.summary
    assert "<details><summary>Reproduce</summary>" in run.summary
    assert out["demo-key"] not in run.summary


def test_a_binary_that_does_not_run_fails_the_install_step(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "serve", "gatecheck-bin": str(tmp_path / "nonexistent")})
    assert run.failed == "install"
    assert "does not run" in run.log


def test_an_unknown_mode_fails_the_install_step(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "check-it", "gatecheck-bin": binary()})
    assert run.failed == "install"
    assert "mode must be serve or check" in run.log
