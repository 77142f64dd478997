"""The pytest example of python/README.md runs as written, in a session of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readmes_pytest_example_passes(pytester: pytest.Pytester) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    example = next(b for b in blocks if "def test_" in b)
    pytester.makepyfile(test_readme_example=example)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning")
    result.assert_outcomes(passed=example.count("\ndef test_"))
