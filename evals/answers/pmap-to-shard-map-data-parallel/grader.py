"""Grade `train.train_step`: a shard_map data-parallel step equal to the single-device step."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

LEARNING_RATE = 0.1


def problem(n: int = 32, d: int = 4, k: int = 3):
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(d, k)).astype(np.float32), "b": rng.normal(size=k).astype(np.float32)}
    return params, rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, k)).astype(np.float32)


def single_device_step(params: dict, x: np.ndarray, y: np.ndarray):
    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


@pytest.fixture
def no_pmap(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("jax.pmap was called: the port must use jax.shard_map")

    monkeypatch.setattr(jax, "pmap", refuse)


def test_eight_devices_are_available():
    assert jax.device_count() == 8


def test_update_equals_the_single_device_step(answer, no_pmap):
    params, x, y = problem()
    want_params, want_loss = single_device_step(params, x, y)
    got_params, got_loss = answer.train_step(params, x, y)
    np.testing.assert_allclose(float(got_loss), float(want_loss), rtol=1e-5)
    for name in ("w", "b"):
        step_taken = np.asarray(got_params[name]) - params[name]
        step_wanted = np.asarray(want_params[name]) - params[name]
        ratio = np.linalg.norm(step_taken) / np.linalg.norm(step_wanted)
        assert abs(ratio - 1) < 1e-3, f"the update of {name!r} is {ratio:.3f} times the single-device update"
        np.testing.assert_allclose(np.asarray(got_params[name]), np.asarray(want_params[name]), atol=1e-5)


def test_new_params_are_replicated_on_all_devices(answer, no_pmap):
    params, x, y = problem()
    got_params, _ = answer.train_step(params, x, y)
    for leaf in jax.tree.leaves(got_params):
        assert len(leaf.sharding.device_set) == 8 and leaf.sharding.is_fully_replicated, leaf.sharding
