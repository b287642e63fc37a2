"""Save and restore a training state (params, Optax state, step) with Orbax, exactly.

Why ``manager.restore(step)`` gave dicts and lists: without a target, Orbax rebuilds the tree from
what the checkpoint records, which knows nothing of Optax's state classes. ``ScaleByAdamState``
comes back as a ``dict`` and the next ``tx.update`` fails (``'dict' object has no attribute 'mu'``).

Fix: always restore into a target with the structure you want back. ``like`` (a freshly initialised
state, e.g. ``{"params": p0, "opt_state": tx.init(p0), "step": jnp.int32(0)}``) is turned into an
abstract target of ``jax.ShapeDtypeStruct``s that keeps its pytree structure (Optax's NamedTuples
included), shapes, dtypes and shardings. The values then come back bit for bit as saved.
"""

from __future__ import annotations

import pathlib
from typing import Any

import jax
import orbax.checkpoint as ocp


def _abstract(leaf: Any) -> jax.ShapeDtypeStruct:
    """Shape, dtype and (for a jax.Array) the concrete sharding of one leaf of the target."""
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    return jax.ShapeDtypeStruct(jax.numpy.shape(leaf), jax.numpy.result_type(leaf))


def save_state(directory: pathlib.Path, step: int, state: dict) -> None:
    """Save ``state`` as checkpoint ``step`` under ``directory``; return once it is committed on disk."""
    directory = pathlib.Path(directory).resolve()  # Orbax requires an absolute path
    with ocp.CheckpointManager(directory) as manager:
        saved = manager.save(int(step), args=ocp.args.StandardSave(state))
        manager.wait_until_finished()  # the async save is committed (tmp dir renamed) after this
    if not saved:
        raise ValueError(
            f"step {step} was not saved: a checkpoint at this step or a later one already exists in {directory}"
        )


def restore_latest(directory: pathlib.Path, like: dict) -> tuple[int, dict]:
    """(newest step, the state saved at it) with ``like``'s pytree structure, shapes and dtypes."""
    directory = pathlib.Path(directory).resolve()
    target = jax.tree.map(_abstract, like)  # Optax state classes stay in the tree structure
    with ocp.CheckpointManager(directory, options=ocp.CheckpointManagerOptions(read_only=True)) as manager:
        step = manager.latest_step()  # only committed steps; interrupted saves are ignored
        if step is None:
            raise FileNotFoundError(f"no finished checkpoint in {directory}")
        state = manager.restore(step, args=ocp.args.StandardRestore(target))
    return int(step), state


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp
    import numpy as np
    import optax

    tx = optax.adamw(1e-2)
    params = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.zeros(3)}
    grads = jax.tree.map(jnp.ones_like, params)
    opt_state = tx.init(params)
    for _ in range(3):
        updates, opt_state = tx.update(grads, opt_state, params)
        params = optax.apply_updates(params, updates)
    state = {"params": params, "opt_state": opt_state, "step": jnp.int32(3)}

    with tempfile.TemporaryDirectory() as tmp:
        save_state(pathlib.Path(tmp), 3, state)
        fresh_params = jax.tree.map(jnp.zeros_like, params)
        like = {"params": fresh_params, "opt_state": tx.init(fresh_params), "step": jnp.int32(0)}
        step, back = restore_latest(pathlib.Path(tmp), like)

    assert step == 3
    assert jax.tree.structure(back) == jax.tree.structure(state)
    for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(back)):
        assert a.dtype == b.dtype and np.array_equal(np.asarray(a), np.asarray(b))
    # Training resumes bit for bit.
    u1, _ = tx.update(grads, state["opt_state"], state["params"])
    u2, _ = tx.update(grads, back["opt_state"], back["params"])
    assert all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(u1), jax.tree.leaves(u2)))
    print("restored step", step, type(back["opt_state"][0]).__name__)
