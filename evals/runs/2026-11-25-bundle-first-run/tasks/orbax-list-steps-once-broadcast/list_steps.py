"""List the finished Orbax checkpoint steps once, on process 0, and broadcast them to every process.

Only process 0 touches the storage. The list has a different length on every run, and a broadcast
needs the same shape in every process, so it goes in two collectives:

1. process 0 broadcasts the number of finished steps (a scalar every process can allocate);
2. if there are any, it broadcasts the steps as an int32 array of that length.

``jax.experimental.multihost_utils.broadcast_one_to_all`` sends process 0's value (its default
source, ``jax.process_index() == 0``) to all processes; the other processes pass zeros of the same
shape. Every process must call ``finished_steps`` (it is a collective), typically right after
``jax.distributed.initialize``.

Which folders are steps: Orbax's own helper ``ocp.utils.checkpoint_steps_paths`` returns the
committed step folders only. An interrupted save leaves ``<step>.orbax-checkpoint-tmp`` (local /
POSIX storage), or, on GCS, a step folder without ``commit_success.txt``; neither is returned.
Folders whose name is not a step (``logs/``, ``eval/``) are dropped too.
"""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
from jax.experimental import multihost_utils

_FAILED = -1  # sent as the count when process 0 could not list the directory


def _list_locally(directory: str) -> list[int]:
    """The committed steps in ``directory``, ascending. Reads the storage: call on one process only."""
    import orbax.checkpoint as ocp
    from etils import epath

    root = epath.Path(directory)
    if not root.exists():
        return []
    steps = set()
    try:
        paths = ocp.utils.checkpoint_steps_paths(root)  # finalized step folders only
        for path in paths:
            try:
                steps.add(int(ocp.utils.step_from_checkpoint_name(path.name)))
            except (ValueError, TypeError):
                continue  # not a step folder
    except AttributeError:  # pragma: no cover - helper missing: same rule by hand (local file systems)
        for path in Path(directory).iterdir():
            if path.is_dir() and path.name.isdigit():  # excludes "<step>.orbax-checkpoint-tmp" and others
                steps.add(int(path.name))
    return sorted(steps)


def finished_steps(directory: str) -> list[int]:
    """The finished (committed) checkpoint steps in ``directory``, ascending, on every process.

    With one process it just lists the directory. With several, only process 0 lists it and the
    result reaches the others by a broadcast from process 0.
    """
    if jax.process_count() == 1:
        return _list_locally(directory)

    is_source = jax.process_index() == 0
    steps: list[int] = []
    error: Exception | None = None
    if is_source:
        try:
            steps = _list_locally(directory)
            count = np.int32(len(steps))
        except Exception as exc:  # tell the others, so they raise instead of waiting forever
            error = exc
            count = np.int32(_FAILED)
    else:
        count = np.int32(0)

    count = int(np.asarray(multihost_utils.broadcast_one_to_all(count)))
    if count == _FAILED:
        if error is not None:
            raise error  # process 0's own listing error
        raise RuntimeError(f"process 0 failed to list the checkpoint directory {directory}")
    if count == 0:
        return []

    # Steps are sent as int32 (JAX's default integer width); steps beyond 2**31 - 1 are not expected.
    payload = np.asarray(steps, dtype=np.int32) if is_source else np.zeros((count,), dtype=np.int32)
    received = np.asarray(multihost_utils.broadcast_one_to_all(payload))
    return [int(s) for s in received.tolist()]
