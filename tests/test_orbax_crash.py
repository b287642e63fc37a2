"""Crash safety of asynchronous Orbax checkpoints, with real processes and real files.

`examples/orbax_checkpointing.py --crash-at-step K` stalls the background save of step K after its files
are written and before Orbax commits it (the rename of `K.orbax-checkpoint-tmp` to `K`), and prints
`STALLED step K`. The test sends SIGKILL at that moment, looks at the directory, restarts the example on
it, and compares the result with an uninterrupted run. The uninterrupted run is the example run with its
defaults (`--steps 40 --save-every 10 --seed 0`, a fresh temporary directory), which is also the plain run
that `tests/test_examples.py` leaves to this file.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "orbax_checkpointing.py"
TMP_SUFFIX = ".orbax-checkpoint-tmp"  # Orbax 0.12.8: a step whose save has not been committed
COMMIT_FILE = "commit_success.txt"  # written into a step just before the commit
STEPS, SAVE_EVERY, CRASH_AT = 40, 10, 20
RUN_TIMEOUT = 240  # seconds for one run of the example on a busy 2-core machine


def example_command(*flags: str) -> list[str]:
    return [sys.executable, str(EXAMPLE), *flags]


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
        example_command("--ckpt-dir", str(ckpt_dir), "--steps", str(STEPS),
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

    resumed_output, resumed = run_to_completion("--ckpt-dir", str(crashed), "--steps", str(STEPS),
                                                "--save-every", str(SAVE_EVERY))
    # (a) it restored the newest complete checkpoint, (b) not the interrupted one ...
    assert resumed["start_step"] == max(complete)
    assert f"resumed from step {max(complete)}" in resumed_output
    assert resumed["final_step"] == STEPS
    # ... and saved that step again properly, leaving no temporary directory behind.
    assert not (crashed / in_flight[0]).exists()
    assert CRASH_AT in resumed["steps_on_disk"]

    uninterrupted_output, uninterrupted = default_run
    assert (uninterrupted["start_step"], uninterrupted["final_step"]) == (0, STEPS)
    assert "resumed" not in uninterrupted_output
    # (c) bitwise the same parameters as a run that was never interrupted ...
    assert resumed["params_sha256"] == uninterrupted["params_sha256"]
    # ... where the digest does depend on the parameters: the untrained ones give another one.
    assert resumed["initial_params_sha256"] == uninterrupted["initial_params_sha256"] != uninterrupted["params_sha256"]


@pytest.mark.timeout(600)
def test_example_runs_with_defaults(default_run):
    output, result = default_run
    assert "no checkpoint found: starting from step 0" in output
    assert "Orbax: asynchronous checkpoints with resume" in output
    assert "measured on:" in output
    assert result["steps_on_disk"] == [STEPS - 2 * SAVE_EVERY, STEPS - SAVE_EVERY, STEPS]  # max_to_keep=3


@pytest.mark.timeout(120)
def test_bad_crash_step_is_a_one_line_error():
    done = subprocess.run(example_command("--crash-at-step", "15"), cwd=REPO, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT)
    assert done.returncode == 2
    assert "--crash-at-step must be a multiple of --save-every" in done.stderr
    assert "Traceback" not in done.stderr
