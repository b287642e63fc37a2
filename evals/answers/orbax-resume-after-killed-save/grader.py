"""Grade `resume.resume`: restart from the newest finished step; leftovers of a killed save are removed."""

import shutil
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


def state_at(step: int) -> dict:
    return {"w": jnp.full((4,), float(step)), "step": jnp.asarray(step)}


def previous_run(directory: Path) -> None:
    """Steps 2 and 4 finished; the job was killed while committing step 6."""
    manager = ocp.CheckpointManager(directory, options=ocp.CheckpointManagerOptions(save_interval_steps=1))
    for step in (2, 4):
        manager.save(step, args=ocp.args.StandardSave(state_at(step)))
    manager.wait_until_finished()
    manager.close()
    leftover = directory / "6.orbax-checkpoint-tmp"
    shutil.copytree(directory / "4", leftover)
    (leftover / "commit_success.txt").unlink(missing_ok=True)


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if not p.name.startswith("_"))


def test_resumes_from_the_newest_finished_step_and_cleans_up(answer, tmp_path):
    directory = tmp_path / "run"
    previous_run(directory)
    manager, step, state = answer.resume(str(directory), state_at(0))
    assert step == 4, f"resumed from step {step}"
    np.testing.assert_array_equal(np.asarray(state["w"]), 4.0)
    assert int(state["step"]) == 4

    manager.save(5, args=ocp.args.StandardSave(state_at(5)))  # training goes on from step 4
    manager.wait_until_finished()
    assert names(directory) == ["2", "4", "5"], f"left on disk: {names(directory)}"
    manager.save(6, args=ocp.args.StandardSave(state_at(6)))
    manager.wait_until_finished()
    assert manager.all_steps() == [2, 4, 5, 6]
    restored = manager.restore(6, args=ocp.args.StandardRestore(state_at(0)))
    np.testing.assert_array_equal(np.asarray(restored["w"]), 6.0)
    manager.close()


def test_a_fresh_directory(answer, tmp_path):
    manager, step, state = answer.resume(str(tmp_path / "fresh"), state_at(0))
    assert step is None and state is None
    manager.save(1, args=ocp.args.StandardSave(state_at(1)))
    manager.wait_until_finished()
    assert manager.all_steps() == [1]
    manager.close()
