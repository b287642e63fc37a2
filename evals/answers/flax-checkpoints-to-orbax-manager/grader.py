"""Grade `checkpointing`: an Orbax CheckpointManager layout, 3 steps kept, restore bit for bit."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import orbax.checkpoint as ocp

TX = optax.adam(1e-3)


def make_state(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    params = {
        "w": jnp.asarray(rng.normal(size=(3, 2)), jnp.bfloat16),
        "b": jnp.asarray(rng.normal(size=2), jnp.float32),
    }
    opt_state = TX.init(params)
    grads = jax.tree.map(jnp.ones_like, params)
    _, opt_state = TX.update(grads, opt_state, params)  # non-zero moments, count 1
    return {"params": params, "opt_state": opt_state, "step": jnp.asarray(seed, jnp.int32)}


def save_five(answer, directory: str) -> list[dict]:
    states = [make_state(step) for step in range(1, 6)]
    for step, state in enumerate(states, start=1):
        answer.save(directory, step, state)
    return states


def test_keeps_the_three_latest_steps_in_manager_layout(answer, tmp_path):
    directory = str(tmp_path / "ckpt")
    save_five(answer, directory)
    with ocp.CheckpointManager(directory) as manager:
        assert manager.all_steps() == [3, 4, 5]


def test_restores_the_latest_state_bit_for_bit(answer, tmp_path):
    directory = str(tmp_path / "ckpt")
    saved = save_five(answer, directory)[-1]
    like = make_state(0)
    step, restored = answer.restore_latest(directory, like)
    assert step == 5
    assert jax.tree.structure(restored) == jax.tree.structure(like), (
        f"restored structure {jax.tree.structure(restored)} differs from {jax.tree.structure(like)}"
    )
    for want, got in zip(jax.tree.leaves(saved), jax.tree.leaves(restored)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_restored_optimizer_state_keeps_training(answer, tmp_path):
    directory = str(tmp_path / "ckpt")
    save_five(answer, directory)
    _, restored = answer.restore_latest(directory, make_state(0))
    grads = jax.tree.map(jnp.ones_like, restored["params"])
    _, new_opt_state = TX.update(grads, restored["opt_state"], restored["params"])
    assert int(new_opt_state[0].count) == 2
