"""Examples: their shape, and the two deeper runs.

The plain run of every example (small CPU defaults, asserting its own claims, printing its results)
is in tests/test_installed_plugin.py, which runs each one as a user would: from the installed plugin,
by the command its skill gives, in an environment without rich. Two get deeper runs here: the
two-process `multihost.py` (checked against a single-process reference computed here) and the Orbax
crash-safety run of `orbax_checkpointing.py`.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from jaxpro.repo import REPO, examples

EXAMPLES = examples()


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


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


# --- examples/orbax_checkpointing.py: crash safety of asynchronous checkpoints ---
#
# Crash safety of asynchronous Orbax checkpoints, with real processes and real files.
#
# `examples/orbax_checkpointing.py --crash-at-step K` stalls the background save of step K after its files
# are written and before Orbax commits it (the rename of `K.orbax-checkpoint-tmp` to `K`), and prints
# `STALLED step K`. The test sends SIGKILL at that moment, looks at the directory, restarts the example on
# it, and compares the result with an uninterrupted run. The uninterrupted run is the example run with its
# defaults (`--steps 40 --save-every 10 --seed 0`, a fresh temporary directory), which is also the plain run of this
# example.

ORBAX_EXAMPLE = REPO / "examples" / "orbax_checkpointing.py"
TMP_SUFFIX = ".orbax-checkpoint-tmp"  # Orbax 0.12.8: a step whose save has not been committed
COMMIT_FILE = "commit_success.txt"  # written into a step just before the commit
ORBAX_STEPS, SAVE_EVERY, CRASH_AT = 40, 10, 20
RUN_TIMEOUT = 240  # seconds for one run of the example on a busy 2-core machine


def example_command(*flags: str) -> list[str]:
    return [sys.executable, str(ORBAX_EXAMPLE), *flags]


@pytest.fixture(scope="module")
def default_run() -> tuple[str, dict]:
    """One uninterrupted run of the example with its defaults: its output and its JSON line."""
    return run_to_completion()


def run_to_completion(*flags: str) -> tuple[str, dict]:
    """Run the example to the end; return its output and the JSON line it prints last."""
    done = subprocess.run(
        example_command(*flags, "--print-params-digest"),
        cwd=REPO, capture_output=True, text=True, timeout=RUN_TIMEOUT,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output, json.loads(done.stdout.strip().splitlines()[-1])


def kill_while_save_is_stalled(ckpt_dir: Path) -> tuple[list[str], str]:
    """Start a run that stalls the save of CRASH_AT, SIGKILL it there; return the directory listing then."""
    proc = subprocess.Popen(
        example_command("--ckpt-dir", str(ckpt_dir), "--steps", str(ORBAX_STEPS),
                        "--save-every", str(SAVE_EVERY), "--crash-at-step", str(CRASH_AT)),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    seen: list[str] = []
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not any(line.startswith(f"STALLED step {CRASH_AT}") for line in seen):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or proc.poll() is not None and lines.empty():
                pytest.fail("the example never reported a stalled save:\n" + "".join(seen)[-4000:])
            try:
                seen.append(lines.get(timeout=min(remaining, 1.0)))
            except queue.Empty:
                continue
        listing = sorted(p.name for p in ckpt_dir.iterdir())
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return listing, "".join(seen)


@pytest.mark.timeout(900)
def test_sigkill_during_async_save_resumes_from_newest_complete_checkpoint(tmp_path: Path, default_run):
    crashed = tmp_path / "crashed"
    listing, output = kill_while_save_is_stalled(crashed)

    # At the kill: the stalled step exists only as an uncommitted temporary directory.
    in_flight = [name for name in listing if name.endswith(TMP_SUFFIX)]
    complete = sorted(int(name) for name in listing if name.isdigit())
    assert in_flight == [f"{CRASH_AT}{TMP_SUFFIX}"], listing
    assert CRASH_AT not in complete, listing
    assert not (crashed / in_flight[0] / COMMIT_FILE).exists()
    assert complete and max(complete) == CRASH_AT - SAVE_EVERY, listing
    assert all((crashed / str(step) / COMMIT_FILE).exists() for step in complete)
    assert f"saving step {CRASH_AT}" in output

    resumed_output, resumed = run_to_completion("--ckpt-dir", str(crashed), "--steps", str(ORBAX_STEPS),
                                                "--save-every", str(SAVE_EVERY))
    # (a) it restored the newest complete checkpoint, (b) not the interrupted one ...
    assert resumed["start_step"] == max(complete)
    assert f"resumed from step {max(complete)}" in resumed_output
    assert resumed["final_step"] == ORBAX_STEPS
    # ... and saved that step again properly, leaving no temporary directory behind.
    assert not (crashed / in_flight[0]).exists()
    assert CRASH_AT in resumed["steps_on_disk"]

    uninterrupted_output, uninterrupted = default_run
    assert (uninterrupted["start_step"], uninterrupted["final_step"]) == (0, ORBAX_STEPS)
    assert "resumed" not in uninterrupted_output
    # (c) bitwise the same parameters as a run that was never interrupted ...
    assert resumed["params_sha256"] == uninterrupted["params_sha256"]
    # ... where the digest does depend on the parameters: the untrained ones give another one.
    assert resumed["initial_params_sha256"] == uninterrupted["initial_params_sha256"] != uninterrupted["params_sha256"]


@pytest.mark.timeout(600)
def test_orbax_example_runs_with_defaults(default_run):
    output, result = default_run
    assert "no checkpoint found: starting from step 0" in output
    assert "Orbax: asynchronous checkpoints with resume" in output
    assert "measured on:" in output
    assert result["steps_on_disk"] == [ORBAX_STEPS - 2 * SAVE_EVERY, ORBAX_STEPS - SAVE_EVERY, ORBAX_STEPS]  # LatestN(3)


@pytest.mark.timeout(120)
def test_orbax_bad_crash_step_is_a_one_line_error():
    done = subprocess.run(example_command("--crash-at-step", "15"), cwd=REPO, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 2
    assert "--crash-at-step must be a multiple of --save-every" in done.stderr
    assert "Traceback" not in done.stderr
