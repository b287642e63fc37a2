"""Grade the NNX port: module and optimizer types, an exact SGD step, one compilation."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from grading import count_compilations


def batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    return jnp.asarray(rng.normal(size=(8, 4)), jnp.float32), jnp.asarray(rng.normal(size=(8, 2)), jnp.float32)


def mse(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


def params_of(model) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree.leaves(nnx.state(model, nnx.Param))]


def test_create_returns_an_nnx_model_and_optimizer(answer):
    model, optimizer = answer.create(0)
    assert isinstance(model, nnx.Module) and isinstance(optimizer, nnx.Optimizer)
    x, _ = batch()
    assert model(x).shape == (8, 2)
    assert len(params_of(model)) == 4  # two kernels, two biases


def test_one_step_is_sgd_with_rate_0_1(answer):
    model, optimizer = answer.create(1)
    x, y = batch(1)
    snapshot = nnx.clone(model)
    want_loss = mse(snapshot, x, y)
    grads = nnx.grad(mse)(snapshot, x, y)
    want = [p - 0.1 * np.asarray(g) for p, g in zip(params_of(snapshot), jax.tree.leaves(grads))]
    loss = answer.train_step(model, optimizer, x, y)
    np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-5)
    for got, expected in zip(params_of(model), want):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_steps_compile_once(answer):
    model, optimizer = answer.create(2)
    x, y = batch(2)
    jax.block_until_ready(answer.train_step(model, optimizer, x, y))
    with count_compilations() as compiled:
        for _ in range(5):
            loss = answer.train_step(model, optimizer, x, y)
        jax.block_until_ready(loss)
    assert compiled.count <= 1, f"{compiled.count} XLA compilations for 5 steps of the same shapes"
