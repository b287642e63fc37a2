"""Grade `list_steps.finished_steps`: the finished steps, read by process 0 and broadcast to the others.

A multi-process job cannot run here, so the grader plays the hosts: it makes Orbax's multihost layer
report two processes and records what goes through `broadcast_one_to_all`.
"""

import shutil
from pathlib import Path

import jax.numpy as jnp
import pytest
import orbax.checkpoint as ocp
from orbax.checkpoint._src.multihost import multihost


@pytest.fixture
def directory(tmp_path: Path) -> Path:
    """Finished steps 3, 7, 10 (saved out of order), an unfinished step 12 and a non-step folder."""
    root = tmp_path / "run"
    manager = ocp.CheckpointManager(root, options=ocp.CheckpointManagerOptions(save_interval_steps=1))
    for step in (3, 10, 7):
        manager.save(step, args=ocp.args.StandardSave({"w": jnp.ones(2) * step}), force=True)
    manager.wait_until_finished()
    manager.close()
    shutil.copytree(root / "10", root / "12.orbax-checkpoint-tmp")
    (root / "12.orbax-checkpoint-tmp" / "commit_success.txt").unlink(missing_ok=True)
    (root / "tensorboard").mkdir()
    return root


class TwoHosts:
    """Pretend to be process `index` of 2; broadcasts return what process 0 sent."""

    def __init__(self, monkeypatch, index: int, sent: list):
        self.sent, self.index = sent, index
        monkeypatch.setattr(multihost, "process_count", lambda: 2)
        monkeypatch.setattr(multihost, "process_index", lambda: index)
        monkeypatch.setattr(multihost, "broadcast_one_to_all", self.broadcast)

    def broadcast(self, value, is_source=None):
        if self.index == 0:
            self.sent.append(value)
            return value
        return self.sent.pop(0)  # the value process 0 sent at this point


def test_single_process(answer, directory):
    assert [int(s) for s in answer.finished_steps(str(directory))] == [3, 7, 10]


def test_process_0_reads_and_broadcasts(answer, directory, monkeypatch):
    sent = []
    TwoHosts(monkeypatch, 0, sent)
    assert [int(s) for s in answer.finished_steps(str(directory))] == [3, 7, 10]
    assert sent, "nothing was broadcast: every host lists the directory itself"


def test_other_processes_get_the_list_from_process_0(answer, directory, monkeypatch):
    sent = []
    with monkeypatch.context() as patch:
        TwoHosts(patch, 0, sent)
        answer.finished_steps(str(directory))
    TwoHosts(monkeypatch, 1, sent)
    assert [int(s) for s in answer.finished_steps(str(directory))] == [3, 7, 10]
    assert not sent, "process 1 did not take every broadcast process 0 sent"
