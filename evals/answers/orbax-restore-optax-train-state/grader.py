"""Grade `ckpt.save_state` / `ckpt.restore_latest`: an Optax train state comes back bit for bit."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

TX = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(1e-2))


def init_state(seed: int) -> dict:
    """Mixed dtypes: float32 and bfloat16 parameters, an int32 step."""
    k1, k2, k3 = jax.random.split(jax.random.key(seed), 3)
    params = {
        "dense": {"w": jax.random.normal(k1, (4, 8)), "b": jax.random.normal(k2, (8,)).astype(jnp.bfloat16)},
        "scale": jax.random.normal(k3, ()),
    }
    return {"params": params, "opt_state": TX.init(params), "step": jnp.int32(0)}


def gradients(params: dict, step: int) -> dict:
    keys = iter(jax.random.split(jax.random.key(100 + step), 3))
    return jax.tree.map(lambda p: jax.random.normal(next(keys), p.shape).astype(p.dtype), params)


def train(state: dict, steps: int) -> dict:
    for _ in range(steps):
        step = int(state["step"])
        updates, opt_state = TX.update(gradients(state["params"], step), state["opt_state"], state["params"])
        state = {"params": optax.apply_updates(state["params"], updates), "opt_state": opt_state, "step": jnp.int32(step + 1)}
    return state


def same_bits(a: jax.Array, b: jax.Array) -> bool:
    return np.asarray(a).dtype == np.asarray(b).dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes()


@pytest.fixture(scope="module")
def saved(answer, tmp_path_factory) -> tuple[Path, dict, int, dict]:
    directory = tmp_path_factory.mktemp("ckpt").resolve()
    at_3 = train(init_state(0), 3)
    answer.save_state(directory, 3, at_3)
    at_5 = train(at_3, 2)
    answer.save_state(directory, 5, at_5)
    step, restored = answer.restore_latest(directory, init_state(1))
    return directory, at_5, step, restored


def test_the_newest_step_is_restored(saved):
    _, _, step, _ = saved
    assert step == 5


def test_structure_is_the_saved_structure(saved):
    _, original, _, restored = saved
    assert jax.tree.structure(restored) == jax.tree.structure(original), (
        f"restored {jax.tree.structure(restored)}\nsaved    {jax.tree.structure(original)}")


def test_every_leaf_bit_for_bit(saved):
    _, original, _, restored = saved
    got, want = jax.tree.leaves(restored), jax.tree.leaves(original)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert same_bits(a, b), f"leaf {i}: restored {np.asarray(a).dtype} {np.asarray(a).ravel()[:3]}, saved {np.asarray(b).dtype} {np.asarray(b).ravel()[:3]}"


def test_training_resumes_bit_for_bit(saved):
    _, original, _, restored = saved
    resumed, uninterrupted = train(restored, 1), train(original, 1)
    for a, b in zip(jax.tree.leaves(resumed), jax.tree.leaves(uninterrupted)):
        assert same_bits(a, b)
