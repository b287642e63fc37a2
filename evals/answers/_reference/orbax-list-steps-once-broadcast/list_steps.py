"""List finished steps with process 0 reading the directory and broadcasting the list to the others."""

import orbax.checkpoint as ocp


def finished_steps(directory: str) -> list[int]:
    options = ocp.CheckpointManagerOptions(single_host_load_and_broadcast=True, read_only=True)
    manager = ocp.CheckpointManager(directory, options=options)
    try:
        return sorted(int(step) for step in manager.all_steps())
    finally:
        manager.close()
