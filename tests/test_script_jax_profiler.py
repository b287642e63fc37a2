"""Tests of scripts/jax_profiler.py, run as a subprocess exactly as an assistant runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "jax_profiler.py"
TARGETS = "tests/fixtures/scripts_targets.py"
MLP_INPUTS = ["-i", "f32[16,32]", "-i", "f32[32,32]", "-i", "f32[32,4]"]


def run_tool(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def test_help_documents_flags_files_and_viewers():
    result = run_tool("--help")
    assert result.returncode == 0
    for text in ("--input", "--runs", "--top", "--out", "--script", "--read", "--devices", "--json",
                 "perfetto_trace.json.gz", "xplane.pb", "ui.perfetto.dev", "xprof", "exit codes:"):
        assert text in result.stdout, text


def test_function_trace_names_the_named_scopes(tmp_path: Path):
    out = tmp_path / "profile"
    result = run_tool(f"{TARGETS}:scoped_mlp", *MLP_INPUTS, "--runs", "3", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    files = report["files"]
    assert files["trace_json"].endswith(".trace.json.gz") and Path(files["trace_json"]).is_file()
    assert Path(files["perfetto"]).name == "perfetto_trace.json.gz" and Path(files["perfetto"]).is_file()
    assert files["xplane"].endswith(".xplane.pb") and Path(files["xplane"]).is_file()
    assert Path(report["trace_dir"]).is_relative_to(out)

    ops = report["ops"]
    assert ops and all(op["module"] == "jit_scoped_mlp" for op in ops)
    assert sum(op["percent"] for op in ops) == pytest.approx(100.0)
    assert all(op["count"] == 3 for op in ops)  # every op ran once per traced call
    source_ops = {op["source_op"] for op in ops}
    assert any("/hidden_layer/" in s for s in source_ops) and any("/output_layer/" in s for s in source_ops)
    scopes = {s["scope"] for s in report["scopes"]}
    assert {"jit(scoped_mlp)/hidden_layer", "jit(scoped_mlp)/output_layer"} <= scopes
    (call,) = report["jit_calls"]
    assert call["function"] == "jit(scoped_mlp)" and call["calls"] == 3 and call["host_ms"] > 0

    again = run_tool("--read", str(out), "--top", "2")
    assert again.returncode == 0, again.stderr
    assert "top 2 of" in again.stdout and "hidden_layer" in again.stdout
    assert "ui.perfetto.dev" in again.stdout and "xprof --port 8791" in again.stdout


def test_script_trace(tmp_path: Path):
    script = tmp_path / "work.py"
    script.write_text(
        "import jax\n"
        "import jax.numpy as jnp\n"
        "@jax.jit\n"
        "def step(x):\n"
        "    with jax.named_scope('my_block'):\n"
        "        return jnp.tanh(x @ x)\n"
        "x = jnp.ones((16, 16))\n"
        "for _ in range(2):\n"
        "    x = step(x).block_until_ready()\n"
    )
    result = run_tool("--out", str(tmp_path / "out"), "--json", "--script", str(script))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert "jit_step" in {op["module"] for op in report["ops"]}
    assert any("my_block" in op["source_op"] for op in report["ops"])
    steps = [c for c in report["jit_calls"] if c["function"] == "step"]
    assert steps and steps[0]["calls"] == 2


def test_script_error_is_reported_not_hidden_by_the_empty_trace(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text('import json\n\nraise RuntimeError("data file missing")\n', encoding="utf-8")
    result = run_tool("--out", str(tmp_path / "out"), "--script", str(script))
    assert_one_line_error(result, 1, f"{script}:3 raised RuntimeError: data file missing", "no profile")


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["no_such_module:f", "-i", "f32[4]"], 2, "unknown module 'no_such_module'"),
        ([f"{TARGETS}:no_such_function", "-i", "f32[4]"], 2, "has no attribute 'no_such_function'"),
        (["missing/model.py:f", "-i", "f32[4]"], 2, "no such file: missing/model.py"),
        (["--script", "missing/train.py"], 2, "no such script: missing/train.py"),
        (["--read", "missing/profile"], 2, "no such trace directory or file"),
        ([f"{TARGETS}:sum_of_squares", "-i", "f32[4]x"], 2, "malformed input spec"),
        ([], 2, "exactly one of TARGET, --script PATH.py or --read PATH"),
        ([f"{TARGETS}:sum_of_squares", "--devices", "0", "-i", "f32[4]"], 2, "argument --devices: expected an integer >= 1, got '0'"),
        ([f"{TARGETS}:sum_of_squares", "--devices", "-3", "-i", "f32[4]"], 2, "argument --devices: expected an integer >= 1, got '-3'"),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(args: list[str], code: int, fragment: str, tmp_path: Path):
    out = tmp_path / "out"
    assert_one_line_error(run_tool("--out", str(out), *args), code, fragment)
    assert not out.exists()


@pytest.mark.parametrize("args", [["--script", "train.py"], [f"{REPO / TARGETS}:no_such_function", "-i", "f32[4]"]],
                         ids=["script-error", "bad-target"])
def test_a_failed_run_leaves_no_default_trace_directory(args: list[str], tmp_path: Path):
    """Without --out the trace goes to a new jax_profile_* directory in the temp dir; a failure removes it."""
    (tmp_path / "train.py").write_text('raise RuntimeError("data file missing")\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PRO_TRACEBACK")}
    done = subprocess.run([sys.executable, str(TOOL), *args], cwd=tmp_path, env={**env, "TMPDIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode in (1, 2) and done.stderr.startswith("error: "), done.stderr
    assert not list(tmp_path.glob("jax_profile_*")), sorted(p.name for p in tmp_path.iterdir())


def test_a_successful_run_keeps_its_default_trace_directory(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PRO_TRACEBACK")}
    done = subprocess.run([sys.executable, str(TOOL), f"{REPO / TARGETS}:sum_of_squares", "-i", "f32[4]"],
                          cwd=tmp_path, env={**env, "TMPDIR": str(tmp_path)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (trace_dir,) = tmp_path.glob("jax_profile_*")
    assert f"trace: {trace_dir}/" in done.stdout
