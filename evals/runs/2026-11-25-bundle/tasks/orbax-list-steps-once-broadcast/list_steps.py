"""Finished Orbax checkpoint steps, listed by process 0 only and broadcast to the others.

`CheckpointManagerOptions(single_host_load_and_broadcast=True)` does exactly this in
orbax-checkpoint 0.12.8: the manager lists the directory on process 0 and broadcasts the list of steps
to the other processes (the option's docstring: "helpful to reduce QPS to the filesystem if there are
a large number of hosts"). The broadcast only happens when `jax.process_count() > 1`; with one process
it simply lists. (The older spelling, `ocp.utils.checkpoint_steps(dir,
single_host_load_and_broadcast=True)`, no longer exists: that helper now lists on every caller.)

Only committed steps count: a save in progress or killed lives in `<step>.orbax-checkpoint-tmp`
(or, on GCS, lacks `commit_success.txt`), and folders whose names are not step numbers are ignored.

`read_only=True` makes sure this manager never creates, writes or deletes anything. Call the
function on every process (it is collective when there are several).
"""

import os

import orbax.checkpoint as ocp


def _absolute(directory: str) -> str:
    """Orbax needs an absolute path; leave remote paths (gs://...) alone."""
    return directory if "://" in str(directory) else os.path.abspath(directory)


def finished_steps(directory: str) -> list[int]:
    """Committed checkpoint steps in `directory`, ascending, read once by process 0."""
    options = ocp.CheckpointManagerOptions(
        single_host_load_and_broadcast=True,  # process 0 lists, the others receive its list
        read_only=True,
    )
    with ocp.CheckpointManager(_absolute(directory), options=options) as manager:
        return sorted(int(step) for step in manager.all_steps())
