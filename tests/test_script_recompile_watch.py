"""Tests of scripts/recompile_watch.py, run as a subprocess exactly as an assistant runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "recompile_watch.py"
TARGETS = "tests/fixtures/scripts_targets.py"


def run_tool(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def test_help_documents_every_flag_and_exit_code():
    result = run_tool("--help")
    assert result.returncode == 0
    for flag in ("--call", "--script", "--fail-above", "--all", "--devices", "--json", "examples:", "exit codes:"):
        assert flag in result.stdout, flag


def test_three_distinct_shapes_compile_three_times_and_name_the_argument():
    calls = ["f32[8]", "f32[16]", "f32[16]", "f32[32]"]
    args = [arg for call in calls for arg in ("--call", call)]
    result = run_tool(f"{TARGETS}:sum_of_squares", *args, "--json")
    assert result.returncode == 0, result.stderr
    (function,) = json.loads(result.stdout)["functions"]
    assert function["function"] == "sum_of_squares"
    assert function["compilations"] == 3
    events = function["events"]
    assert [e["call"] for e in events] == [1, 2, 4]
    assert [e["signature"] for e in events] == ["f32[8]", "f32[16]", "f32[32]"]
    assert [e["reason"] for e in events] == ["first compilation", "x: f32[8] -> f32[16]", "x: f32[16] -> f32[32]"]


def test_static_argument_values_are_named_and_fail_above_exits_3():
    result = run_tool(f"{TARGETS}:scaled", "--call", "f32[8] 2", "--call", "f32[8] 3", "--call", "f32[8] 3",
                      "--fail-above", "1")
    assert_one_line_error(result, 3, "--fail-above 1", "scaled (2)")
    assert "factor: 2 -> 3" in result.stdout
    assert "first compilation" in result.stdout


def test_already_jitted_function_with_static_argnames():
    result = run_tool(f"{TARGETS}:jitted_power", "--call", "f32[4] 2", "--call", "f32[4] 3", "--call", "i32[4] 3",
                      "--json")
    assert result.returncode == 0, result.stderr
    (function,) = json.loads(result.stdout)["functions"]
    assert [e["reason"] for e in function["events"]] == ["first compilation", "power: 2 -> 3", "x: f32[4] -> i32[4]"]


def test_script_mode_uses_jax_explanations(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(
        "import sys\n"
        "import jax\n"
        "import jax.numpy as jnp\n"
        "@jax.jit\n"
        "def step(w, batch):\n"
        "    return w - 0.1 * jnp.mean(batch) * w\n"
        "w = jnp.ones(4)\n"
        "for size in (8, 8, 16):\n"
        "    w = step(w, jnp.ones(size))\n"
        "print('trained with', sys.argv[1:])\n"
    )
    result = run_tool("--json", "--script", str(script), "--epochs", "1")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # the script's print went to stderr, not into the JSON
    assert "trained with ['--epochs', '1']" in result.stderr
    (function,) = report["functions"]
    assert function["function"] == "step" and function["compilations"] == 2
    assert function["events"][1]["reason"] == "batch: f32[8] -> f32[16]"
    assert sum(report["hidden_internal_compilations"].values()) >= 1  # jnp.ones outside jit compiles too


def test_counts_compilations_not_lowerings(tmp_path: Path):
    """A bare lower() compiles nothing; a committed array on another device compiles without lowering."""
    script = tmp_path / "devices.py"
    script.write_text(
        "import jax\n"
        "import jax.numpy as jnp\n"
        "@jax.jit\n"
        "def affine(x):\n"
        "    return 2 * x + 1\n"
        "affine.lower(jnp.ones(7))\n"
        "affine(jax.device_put(jnp.ones(4), jax.devices()[0]))\n"
        "affine(jax.device_put(jnp.ones(4), jax.devices()[1]))\n"
    )
    result = run_tool("--json", "--devices", "2", "--script", str(script))
    assert result.returncode == 0, result.stderr
    (function,) = json.loads(result.stdout)["functions"]
    assert function["compilations"] == 2
    assert [e["signature"] for e in function["events"]] == ["f32[4]", "f32[4]"]
    assert "another device" in function["events"][1]["reason"]


def test_script_that_raises_reports_then_exits_1(tmp_path: Path):
    script = tmp_path / "broken.py"
    script.write_text("import jax.numpy as jnp\njnp.ones(3)\nraise RuntimeError('data file missing')\n")
    result = run_tool("--script", str(script))
    assert_one_line_error(result, 1, "script raised RuntimeError: data file missing")
    assert "recompile_watch" in result.stdout


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["no_such_module:f", "--call", "f32[4]"], 2, "unknown module 'no_such_module'"),
        ([f"{TARGETS}:no_such_function", "--call", "f32[4]"], 2, "has no attribute 'no_such_function'"),
        (["missing/model.py:f", "--call", "f32[4]"], 2, "no such file: missing/model.py"),
        (["--script", "missing/train.py"], 2, "no such script: missing/train.py"),
        ([f"{TARGETS}:sum_of_squares", "--call", "f32[4"], 2, "unbalanced brackets"),
        ([f"{TARGETS}:sum_of_squares", "--call", "f32[four]"], 2, "malformed shape"),
        ([f"{TARGETS}:sum_of_squares"], 2, "at least one --call"),
        ([f"{TARGETS}:sum_of_squares", "--devices", "0", "--call", "f32[4]"], 2, "argument --devices: expected an integer >= 1, got '0'"),
        ([f"{TARGETS}:sum_of_squares", "--devices", "-3", "--call", "f32[4]"], 2, "argument --devices: expected an integer >= 1, got '-3'"),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(args: list[str], code: int, fragment: str):
    assert_one_line_error(run_tool(*args), code, fragment)
