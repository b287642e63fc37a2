"""examples/multihost.py: two real JAX processes on localhost train exactly like one process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "multihost.py"
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
        [sys.executable, str(EXAMPLE), "--steps", str(STEPS), "--timeout", "150", "--out-dir", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=180,
    )
    assert run.returncode == 0, f"multihost.py failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    assert "multihost: OK" in run.stdout

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
        [sys.executable, str(EXAMPLE), "--process-id", "1", "--out-dir", "unused"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 2
    assert "give all of --process-id, --num-processes and --coordinator" in run.stderr
    assert "Traceback" not in run.stderr
