"""Save and restore a training state (params, Optax state, step) with Orbax, exactly.

Why ``manager.restore(step)`` gave you dicts and lists: without a target, Orbax rebuilds the tree from
what the checkpoint records, which is nested dicts and lists. Optax's state classes (NamedTuples such
as ``ScaleByAdamState``) are not recorded, so the next ``tx.update`` fails (e.g. ``AttributeError:
'dict' object has no attribute 'mu'``). Restore into an abstract target built from a freshly
initialised state of the same structure: ``ocp.args.StandardRestore(target)`` with a pytree of
``jax.ShapeDtypeStruct``. The structure (Optax classes included), shapes, dtypes and shardings then
come from the target, and the values, bit for bit, from the checkpoint.
"""

from __future__ import annotations

import pathlib

import jax
import numpy as np
import orbax.checkpoint as ocp


def _abstract(leaf):
    """ShapeDtypeStruct for a leaf, keeping the placement of a jax.Array (no memory allocated)."""
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    leaf = np.asarray(leaf)
    return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype)


def save_state(directory: pathlib.Path, step: int, state: dict) -> None:
    """Save ``state`` as checkpoint ``step`` under ``directory``; return once it is committed on disk."""
    directory = pathlib.Path(directory).absolute()
    with ocp.CheckpointManager(directory) as manager:
        # force=True: write this step regardless of the manager's save-interval policies.
        manager.save(int(step), args=ocp.args.StandardSave(state), force=True)
        manager.wait_until_finished()  # the save is asynchronous by default


def restore_latest(directory: pathlib.Path, like: dict) -> tuple[int, dict]:
    """Return ``(newest step, state saved at it)`` with ``like``'s pytree structure.

    ``like`` is a freshly initialised state of the same structure (e.g. ``tx.init(params)`` for the
    optimizer state); only its structure, shapes, dtypes and placements are used.
    """
    directory = pathlib.Path(directory).absolute()
    with ocp.CheckpointManager(directory) as manager:
        step = manager.latest_step()
        if step is None:
            raise FileNotFoundError(f"no checkpoint in {directory}")
        target = jax.tree.map(_abstract, like)
        state = manager.restore(step, args=ocp.args.StandardRestore(target))
    return int(step), state


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp
    import optax

    tx = optax.adam(1e-2)

    def loss_fn(params, x, y):
        return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)

    @jax.jit
    def train_step(state, x, y):
        grads = jax.grad(loss_fn)(state["params"], x, y)
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        return {"params": optax.apply_updates(state["params"], updates),
                "opt_state": opt_state, "step": state["step"] + 1}

    def init(seed):
        kw, _ = jax.random.split(jax.random.key(seed))
        params = {"w": jax.random.normal(kw, (5, 3)), "b": jnp.zeros(3, jnp.float32)}
        return {"params": params, "opt_state": tx.init(params), "step": jnp.int32(0)}

    x = jax.random.normal(jax.random.key(10), (16, 5))
    y = jax.random.normal(jax.random.key(11), (16, 3))

    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp) / "ckpts"
        state = init(0)
        for _ in range(3):
            state = train_step(state, x, y)
            save_state(root, int(state["step"]), state)
        continued = train_step(state, x, y)

        step, restored = restore_latest(root, init(123))  # fresh state with other values
        print("restored step", step, "| opt_state[0] is", type(restored["opt_state"][0]).__name__)
        assert step == 3
        assert jax.tree.structure(restored) == jax.tree.structure(state)
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(restored)):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()  # same bits

        resumed = train_step(restored, x, y)  # the next optimizer update works and matches bitwise
        for a, b in zip(jax.tree.leaves(continued), jax.tree.leaves(resumed)):
            assert np.array_equal(np.asarray(a), np.asarray(b))
        print("resumed step is bitwise identical to the uninterrupted one")
