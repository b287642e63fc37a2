"""Every example runs with its small CPU defaults, asserts its own claims and prints its results.

Examples with special runs (the Orbax crash-safety run, the two-process run) have their own test
files; this one runs each example exactly as `python dev/run_examples.py` does.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "dev"))
from run_examples import discover, run_example  # noqa: E402

EXAMPLES = discover()


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_reports(path: Path):
    result = run_example(path)
    assert result.passed, result.output[-4000:]
    assert "measured on:" in result.output, "examples print their results with examples/_report.py"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_has_docstring_and_flags(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree)
    assert docstring and len(docstring.split()) >= 10, f"{path.name} must open with a docstring saying what it shows"
    assert "argparse" in path.read_text(encoding="utf-8"), f"{path.name} must take argparse flags"
