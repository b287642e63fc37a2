"""Tests of scripts/hlo_report.py, run as a subprocess exactly as an assistant runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "hlo_report.py"
TARGETS = "tests/fixtures/scripts_targets.py"
M, K, N = 8, 16, 16  # matmul_tanh(x: f32[M,K], w: f32[K,N])
MATMUL_INPUTS = ["-i", f"f32[{M},{K}]", "-i", f"f32[{K},{N}]"]


def run_tool(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def test_help_documents_every_flag_and_exit_code():
    result = run_tool("--help")
    assert result.returncode == 0
    for flag in ("--input", "--stage", "jaxpr", "stablehlo", "--diff", "--diff-git", "--devices", "--json",
                 "examples:", "exit codes:"):
        assert flag in result.stdout, flag


def test_report_of_a_known_function():
    result = run_tool(f"{TARGETS}:matmul_tanh", *MATMUL_INPUTS, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ops"]["dot"] == 1 and report["ops"]["tanh"] == 1
    assert report["fusions"]["count"] == report["entry_ops"]["fusion"] >= 1
    assert sum(report["fusions"]["kinds"].values()) == report["fusions"]["count"]
    assert set(report["collectives"].values()) == {0}
    assert report["cost"]["flops"] == 2 * M * K * N
    assert report["cost"]["transcendentals"] == M * N
    assert report["memory"]["argument_bytes"] == 4 * (M * K + K * N)
    assert report["memory"]["output_bytes"] == 4 * M * N


def test_table_output_lists_metrics_and_opcodes():
    result = run_tool(f"{TARGETS}:matmul_tanh", *MATMUL_INPUTS)
    assert result.returncode == 0, result.stderr
    for text in ("cost: flops", f"{2 * M * K * N:,}", "memory: temp_bytes", "collective: all-reduce",
                 "optimized HLO op counts", "dot", "tanh", "fusion kinds:", "measured on:"):
        assert text in result.stdout, text


def test_diff_of_two_functions_gives_op_count_deltas():
    result = run_tool(f"{TARGETS}:matmul_tanh", *MATMUL_INPUTS, "--diff", f"{TARGETS}:matmul_tanh_twice", "--json")
    assert result.returncode == 0, result.stderr
    diff = json.loads(result.stdout)["diff"]
    assert diff["ops"]["dot"] == {"a": 1, "b": 2, "delta": 1}
    assert diff["ops"]["tanh"]["delta"] == 1
    assert diff["metrics"]["cost: flops"]["delta"] == 2 * M * K * N


def test_collectives_are_counted_on_eight_virtual_devices():
    result = run_tool(f"{TARGETS}:psum_over_devices", "-i", "f32[16]", "--devices", "8", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["environment"]["device_count"] == 8
    assert report["collectives"] == {"all-reduce": 1, "all-gather": 0, "reduce-scatter": 0,
                                     "collective-permute": 0, "all-to-all": 0}


def test_stages_print_jaxpr_and_optimized_hlo():
    jaxpr = run_tool(f"{TARGETS}:matmul_tanh", *MATMUL_INPUTS, "--stage", "jaxpr")
    assert jaxpr.returncode == 0, jaxpr.stderr
    assert "dot_general" in jaxpr.stdout and "tanh" in jaxpr.stdout
    hlo = run_tool(f"{TARGETS}:scaled", "-i", "f32[4]", "-i", "3", "--stage", "hlo")
    assert hlo.returncode == 0, hlo.stderr
    assert hlo.stdout.startswith("HloModule jit_scaled")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=test", "-c", "user.email=test@example.com", *args],
                   cwd=repo, check=True, capture_output=True)


def test_diff_git_compares_the_function_with_a_git_revision(tmp_path: Path):
    module = tmp_path / "ops_module.py"
    module.write_text("import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "ops_module.py")
    _git(tmp_path, "commit", "-q", "-m", "sin only")
    module.write_text("import jax.numpy as jnp\n\ndef f(x):\n    return jnp.cos(jnp.sin(x))\n")

    result = run_tool("ops_module:f", "-i", "f32[8]", "--diff-git", "HEAD", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["labels"] == {"a": "ops_module:f @ HEAD", "b": "ops_module:f (working tree)"}
    assert report["diff"]["ops"]["cosine"] == {"a": 0, "b": 1, "delta": 1}
    assert report["diff"]["ops"]["sine"]["delta"] == 0
    assert report["diff"]["metrics"]["cost: transcendentals"]["delta"] == 8

    text = run_tool("ops_module:f", "-i", "f32[8]", "--diff-git", "HEAD", "--stage", "jaxpr", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    changed = [line for line in text.stdout.splitlines() if line.startswith(("+", "-"))]
    assert changed[:2] == ["--- ops_module:f @ HEAD", "+++ ops_module:f (working tree)"]
    assert "cos" not in changed[2] and "cos b" in changed[3]

    bad_rev = run_tool("ops_module:f", "-i", "f32[8]", "--diff-git", "no-such-rev", cwd=tmp_path)
    assert_one_line_error(bad_rev, 1, "git show no-such-rev:ops_module.py failed")


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["no_such_module:f", "-i", "f32[4]"], 2, "unknown module 'no_such_module'"),
        ([f"{TARGETS}:no_such_function", "-i", "f32[4]"], 2, "has no attribute 'no_such_function'"),
        (["missing/ops.py:f", "-i", "f32[4]"], 2, "no such file: missing/ops.py"),
        ([f"{TARGETS}:matmul_tanh", "-i", "f32[8,16", "-i", "f32[16,16]"], 2, "malformed input spec"),
        ([f"{TARGETS}:matmul_tanh", "-i", "f32[8,16]", "-i", "f32[4,4]"], 1, "lowering"),
        ([f"{TARGETS}:matmul_tanh", "--stage", "llvm"], 2, "invalid choice: 'llvm'"),
        ([f"{TARGETS}:matmul_tanh", "--diff", "a:b", "--diff-git", "HEAD"], 2, "not allowed with"),
        ([f"{TARGETS}:matmul_tanh", "--devices", "0", "-i", "f32[8,16]", "-i", "f32[16,16]"], 2, "argument --devices: expected an integer >= 1, got '0'"),
        ([f"{TARGETS}:matmul_tanh", "--devices", "-3", "-i", "f32[8,16]", "-i", "f32[16,16]"], 2, "argument --devices: expected an integer >= 1, got '-3'"),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(args: list[str], code: int, fragment: str):
    assert_one_line_error(run_tool(*args), code, fragment)
