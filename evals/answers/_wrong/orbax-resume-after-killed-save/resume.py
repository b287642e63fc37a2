"""The orbax 0.11 form: sweep the leftover tmp directories with ocp.utils, then open the manager."""

import jax
import orbax.checkpoint as ocp


def resume(directory: str, target):
    ocp.utils.cleanup_tmp_directories(directory)
    manager = ocp.CheckpointManager(directory, options=ocp.CheckpointManagerOptions(save_interval_steps=1))
    step = manager.latest_step()
    if step is None:
        return manager, None, None
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, target)
    state = manager.restore(step, args=ocp.args.StandardRestore(abstract))
    return manager, step, state
