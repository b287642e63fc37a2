"""Restart on a directory a killed job left: the manager removes unfinished tmp steps itself."""

import jax
import orbax.checkpoint as ocp


def resume(directory: str, target):
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,
        cleanup_tmp_directories=True,  # removes *.orbax-checkpoint-tmp leftovers, done before the first save
    )
    manager = ocp.CheckpointManager(directory, options=options)
    step = manager.latest_step()  # only committed steps count
    if step is None:
        return manager, None, None
    abstract = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), target)
    state = manager.restore(step, args=ocp.args.StandardRestore(abstract))
    return manager, step, state
