"""Grade `retention.make_manager`: the newest two checkpoints plus the evaluation steps survive, on disk too."""

from pathlib import Path

import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


def save_steps(manager, steps):
    for step in steps:
        manager.save(step, args=ocp.args.StandardSave({"w": jnp.full((3,), float(step))}))
    manager.wait_until_finished()


def on_disk(directory: Path) -> list[int]:
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit())


def test_latest_two_and_eval_steps_survive(answer, tmp_path):
    manager = answer.make_manager(str(tmp_path / "run"), [3, 7])
    save_steps(manager, range(11))
    assert manager.all_steps() == [3, 7, 9, 10], manager.all_steps()
    assert on_disk(tmp_path / "run") == [3, 7, 9, 10], "other checkpoints were not deleted from disk"
    restored = manager.restore(3, args=ocp.args.StandardRestore({"w": jnp.zeros(3)}))
    np.testing.assert_array_equal(np.asarray(restored["w"]), 3.0)
    manager.close()


def test_a_restarted_job_keeps_the_same_rule(answer, tmp_path):
    manager = answer.make_manager(str(tmp_path / "run"), [0, 4, 12])
    save_steps(manager, range(6))
    assert manager.all_steps() == [0, 4, 5], manager.all_steps()
    manager.close()
    restarted = answer.make_manager(str(tmp_path / "run"), [0, 4, 12])
    assert restarted.latest_step() == 5
    save_steps(restarted, range(6, 15))
    assert restarted.all_steps() == [0, 4, 12, 13, 14], restarted.all_steps()
    assert on_disk(tmp_path / "run") == [0, 4, 12, 13, 14]
    restarted.close()
