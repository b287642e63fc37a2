"""Grade `per_example.per_example_grads`: one gradient per example, each equal to a single-example grad."""

import jax
import jax.numpy as jnp
import numpy as np

RNG = np.random.default_rng(1)
N, D = 5, 3


def problem() -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    params = {"w": jnp.asarray(RNG.normal(size=D), jnp.float32), "b": jnp.float32(0.3)}
    xs = jnp.asarray(RNG.normal(size=(N, D)), jnp.float32)
    ys = jnp.asarray(RNG.normal(size=N), jnp.float32)
    return params, xs, ys


def example_loss(params, x, y):
    return (x @ params["w"] + params["b"] - y) ** 2


def check(grads, params, xs, ys) -> None:
    assert set(grads) == {"w", "b"}, f"keys {sorted(grads)}"
    assert grads["w"].shape == (N, D) and grads["b"].shape == (N,), f"shapes {grads['w'].shape}, {grads['b'].shape}"
    for i in range(N):
        want = jax.grad(example_loss)(params, xs[i], ys[i])
        np.testing.assert_allclose(np.asarray(grads["w"][i]), np.asarray(want["w"]), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(grads["b"][i]), np.asarray(want["b"]), rtol=1e-5, atol=1e-6)
    batch = jax.grad(lambda p: jnp.mean(jax.vmap(example_loss, in_axes=(None, 0, 0))(p, xs, ys)))(params)
    np.testing.assert_allclose(np.asarray(grads["w"].mean(axis=0)), np.asarray(batch["w"]), rtol=1e-5, atol=1e-6)


def test_one_gradient_per_example(answer):
    params, xs, ys = problem()
    check(answer.per_example_grads(params, xs, ys), params, xs, ys)


def test_under_jit(answer):
    params, xs, ys = problem()
    check(jax.jit(answer.per_example_grads)(params, xs, ys), params, xs, ys)
