"""List the finished Orbax checkpoint steps once (on process 0) and broadcast them to all processes.

What counts as a finished step (the rules Orbax itself uses with its default step naming):
  * a directory whose name is the step number (`0`, `100`, `25000`, ...);
  * not a temporary directory of a save in progress or of a killed save: Orbax writes a step into
    `<step>.orbax-checkpoint-tmp-<timestamp>` and renames it when it is committed, so such names are
    not steps (they also fail the "name is a number" test);
  * on object stores without atomic rename (gs://), Orbax writes into the final directory and marks
    the commit with a `commit_success.txt` file inside it; a step directory without it is unfinished.

Only process 0 touches the storage. The other processes get the list through
`jax.experimental.multihost_utils.broadcast_one_to_all`, which needs every process to pass arrays of
the same shape; since they do not know the number of steps, it is broadcast first, then the steps.
"""

import jax
import numpy as np
from etils import epath
from jax.experimental import multihost_utils

_TMP_MARKER = ".orbax-checkpoint-tmp"
_COMMIT_SUCCESS_FILE = "commit_success.txt"
_LOW_BITS = 31  # steps are sent as two int32 halves, so steps >= 2**31 survive without x64


def _needs_commit_file(directory: epath.Path) -> bool:
    return str(directory).startswith("gs://")


def _list_finished_steps(directory: str) -> list[int]:
    root = epath.Path(directory)
    if not root.exists():
        return []
    needs_commit_file = _needs_commit_file(root)
    steps = []
    for child in root.iterdir():
        name = child.name
        if _TMP_MARKER in name or not name.isdigit():
            continue  # temporary (unfinished) save, or an unrelated entry
        if not child.is_dir():
            continue
        if needs_commit_file and not (child / _COMMIT_SUCCESS_FILE).exists():
            continue  # save started but never committed
        steps.append(int(name))
    return sorted(steps)


def finished_steps(directory: str) -> list[int]:
    """Finished checkpoint steps in `directory`, ascending, read only by process 0."""
    if jax.process_count() == 1:
        return _list_finished_steps(directory)

    is_source = jax.process_index() == 0
    steps = _list_finished_steps(directory) if is_source else []

    # 1) how many steps there are (every process passes a same-shaped placeholder)
    count = multihost_utils.broadcast_one_to_all(
        np.asarray(len(steps), dtype=np.int32), is_source=is_source
    )
    count = int(count)
    if count == 0:
        return []

    # 2) the steps themselves, as (high, low) int32 pairs
    if is_source:
        values = np.asarray(steps, dtype=np.int64)
        payload = np.stack([values >> _LOW_BITS, values & ((1 << _LOW_BITS) - 1)], axis=1)
        payload = payload.astype(np.int32)
    else:
        payload = np.zeros((count, 2), dtype=np.int32)
    payload = np.asarray(multihost_utils.broadcast_one_to_all(payload, is_source=is_source))
    payload = payload.astype(np.int64)
    return [int(hi << _LOW_BITS | lo) for hi, lo in payload]


if __name__ == "__main__":
    import sys

    print(finished_steps(sys.argv[1] if len(sys.argv) > 1 else "/tmp/checkpoints"))
