"""The orbax 0.11 form: ocp.utils.checkpoint_steps(..., single_host_load_and_broadcast=True)."""

import orbax.checkpoint as ocp


def finished_steps(directory: str) -> list[int]:
    steps = ocp.utils.checkpoint_steps(directory, single_host_load_and_broadcast=True)
    return sorted(int(step) for step in steps)
