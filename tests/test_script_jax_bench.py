"""Tests of scripts/jax_bench.py, run as a subprocess exactly as an assistant runs it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from script_runner import assert_one_line_error, run_script

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "scripts" / "jax_bench.py"
TARGETS = "tests/fixtures/scripts_targets.py"


def run_tool(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return run_script(TOOL, *args, cwd=cwd)


def test_help_documents_every_flag_and_exit_code():
    result = run_tool("--help")
    assert result.returncode == 0
    for flag in ("--input", "--compare", "--check-equal", "--rtol", "--atol", "--repeats", "--warmup",
                 "--number", "--filter", "--devices", "--json", "examples:", "exit codes:", "f32[1024,1024]"):
        assert flag in result.stdout, flag


def test_compare_reports_compile_and_run_statistics_and_the_ratio():
    result = run_tool(
        f"{TARGETS}:sum_of_squares", "--input", "f32[256]", "--compare", f"{TARGETS}:sum_of_squares_vdot",
        "--check-equal", "--atol", "1e-4", "--repeats", "3", "--warmup", "1", "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    a, b = report["results"]
    assert a["target"].endswith(":sum_of_squares") and b["target"].endswith(":sum_of_squares_vdot")
    for r in (a, b):
        assert r["lower_ms"] > 0 and r["compile_ms"] > 0
        run = r["run_ms"]
        assert r["samples"] == 3
        assert 0 < run["min"] <= run["q25"] <= run["median"] <= run["q75"] <= run["max"]
        assert run["iqr"] == pytest.approx(run["q75"] - run["q25"])
    assert report["ratio"] > 0
    assert report["ratio"] == pytest.approx(a["run_ms"]["median"] / b["run_ms"]["median"])
    assert report["check_equal"]["equal"] is True
    assert report["environment"]["jax"] == "0.12.0.1"


def test_check_equal_fails_with_exit_3_when_results_differ():
    result = run_tool(
        f"{TARGETS}:sum_of_squares", "-i", "f32[16]", "--compare", f"{TARGETS}:sum_of_squares_wrong",
        "--check-equal", "--repeats", "3",
    )
    assert_one_line_error(result, 3, "results differ", "max |a - b| = 1")
    assert "DIFFERENT" in result.stdout


def test_literal_inputs_become_static_arguments_and_the_table_names_the_function():
    result = run_tool(f"{TARGETS}:scaled", "-i", "f32[8]", "-i", "3", "--repeats", "3")
    assert result.returncode == 0, result.stderr
    assert "scripts_targets.py:scaled" in result.stdout
    assert "median ms" in result.stdout and "compile ms" in result.stdout
    assert "measured on:" in result.stdout


def test_benchmark_file_mode_times_bench_functions_and_benchmark_fixture_tests(tmp_path: Path):
    bench_file = tmp_path / "bench_ops.py"
    bench_file.write_text(
        "import jax\n"
        "import jax.numpy as jnp\n"
        "x = jnp.ones((16, 16))\n"
        "matmul = jax.jit(lambda a: a @ a)\n"
        "def bench_matmul():\n"
        "    return matmul(x)\n"
        "def test_sum(benchmark):\n"
        "    assert benchmark(jnp.sum, x) == 256\n"
        "def test_pedantic(benchmark):\n"
        "    benchmark.pedantic(matmul, args=(x,), rounds=4, iterations=2)\n"
        "def test_needs_other_fixture(tmp_path, benchmark):\n"
        "    pass\n"
        "def test_without_benchmark():\n"
        "    pass\n"
    )
    result = run_tool(str(bench_file), "--repeats", "3", "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)["results"]}
    assert set(rows) == {"bench_matmul", "test_sum", "test_pedantic", "test_needs_other_fixture"}
    assert rows["bench_matmul"]["samples"] == 3 and rows["test_sum"]["samples"] == 3
    assert rows["test_pedantic"]["samples"] == 4
    assert rows["bench_matmul"]["first_call_ms"] > 0 and rows["bench_matmul"]["run_ms"]["median"] > 0
    assert "tmp_path" in rows["test_needs_other_fixture"]["skipped"]


@pytest.mark.parametrize(
    ("args", "code", "fragment"),
    [
        (["no_such_module:f", "-i", "f32[4]"], 2, "unknown module 'no_such_module'"),
        ([f"{TARGETS}:no_such_function", "-i", "f32[4]"], 2, "has no attribute 'no_such_function'"),
        (["missing/bench.py:f", "-i", "f32[4]"], 2, "no such file: missing/bench.py"),
        (["missing/bench.py"], 2, "no such file"),
        ([f"{TARGETS}:sum_of_squares", "-i", "f32[4,"], 2, "malformed input spec 'f32[4,'"),
        ([f"{TARGETS}:sum_of_squares", "-i", "float[4]"], 2, "unknown dtype 'float'"),
        ([f"{TARGETS}:NOT_A_FUNCTION"], 2, "not callable"),
        ([f"{TARGETS}:fails_at_trace", "-i", "f32[4]"], 1, "TracerBoolConversionError"),
        ([f"{TARGETS}:sum_of_squares", "--repeats", "0"], 2, "--repeats"),
    ],
)
def test_bad_input_gives_one_error_line_and_no_traceback(args: list[str], code: int, fragment: str):
    assert_one_line_error(run_tool(*args), code, fragment)
