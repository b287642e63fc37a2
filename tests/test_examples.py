"""Every example runs with its small CPU defaults, asserts its own claims and prints its results.

Most examples run exactly as `python dev/run_examples.py` runs them. Two get deeper runs below,
which replace their plain run: the two-process `multihost.py` (checked against a single-process
reference computed here) and the Orbax crash-safety run of `orbax_checkpointing.py`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "dev"))
from run_examples import discover, run_example  # noqa: E402

EXAMPLES = discover()
DEEPER_RUNS = {"multihost", "orbax_checkpointing"}


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.stem not in DEEPER_RUNS], ids=lambda p: p.stem)
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


# --- examples/multihost.py: two real JAX processes on localhost train exactly like one process ---

MULTIHOST = REPO / "examples" / "multihost.py"
STEPS = 2


def reference(steps: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The same steps in this process, unsharded, computed independently of the example's launcher."""
    sys.path.insert(0, str(REPO / "examples"))
    try:
        import jax
        from spmd_parallelism import make_problem, sgd_step
    finally:
        sys.path.remove(str(REPO / "examples"))
    params, x, y = make_problem(0, 64, d_in=16, hidden=32, d_out=8)
    losses = []
    for _ in range(steps):
        loss, params = jax.jit(sgd_step)(params, x, y)
        losses.append(float(loss))
    return np.array(losses), {k: np.asarray(v) for k, v in params.items()}


@pytest.mark.timeout(200)
def test_two_processes_match_one_process(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(MULTIHOST), "--steps", str(STEPS), "--timeout", "150", "--out-dir", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=180,
    )
    assert run.returncode == 0, f"multihost.py failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    assert "multihost: OK" in run.stdout
    assert "measured on:" in run.stdout

    ref_losses, ref_params = reference(STEPS)
    results = [np.load(tmp_path / f"process{i}.npz") for i in range(2)]
    for i, result in enumerate(results):
        log = (tmp_path / f"worker{i}.log").read_text()
        assert f"process {i}/2: 4 local of 8 devices" in log
        first_row = 32 * i
        assert f"process {i}: loads rows {first_row} to {first_row + 31} in 4 blocks" in log
        np.testing.assert_allclose(result["losses"], ref_losses, rtol=0, atol=1e-5)
        for name, value in ref_params.items():
            np.testing.assert_allclose(result[name], value, rtol=0, atol=1e-5, err_msg=name)
    for name in ref_params:
        np.testing.assert_array_equal(results[0][name], results[1][name], err_msg=name)


def test_partial_worker_flags_give_one_line_error() -> None:
    run = subprocess.run(
        [sys.executable, str(MULTIHOST), "--process-id", "1", "--out-dir", "unused"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert "give all of --process-id, --num-processes and --coordinator" in run.stderr
    assert "Traceback" not in run.stderr
