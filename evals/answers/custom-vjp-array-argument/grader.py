"""Grade `clipgrad.clip_gradient`: a custom_vjp clipper whose array bound may be a jit argument."""

import jax
import jax.numpy as jnp
import numpy as np

WEIGHTS = jnp.array([3.0, -0.2, -5.0, 0.7])
BOUND = jnp.array([1.0, 1.0, 2.0, 0.5])


def loss(answer, x, bound):
    return jnp.sum(WEIGHTS * answer.clip_gradient(x, bound))


def test_forward_is_the_identity(answer):
    x = jnp.array([0.5, -1.5, 2.0, 3.0])
    np.testing.assert_array_equal(np.asarray(jax.jit(answer.clip_gradient)(x, BOUND)), np.asarray(x))


def test_gradient_is_clipped_under_jit(answer):
    grad = jax.jit(jax.grad(lambda x, b: loss(answer, x, b)))(jnp.ones(4), BOUND)
    np.testing.assert_allclose(np.asarray(grad), np.clip(np.asarray(WEIGHTS), -np.asarray(BOUND), np.asarray(BOUND)))


def test_bound_gets_a_zero_gradient(answer):
    grad_bound = jax.jit(jax.grad(lambda x, b: loss(answer, x, b), argnums=1))(jnp.ones(4), BOUND)
    np.testing.assert_array_equal(np.asarray(grad_bound), np.zeros(4))


def test_inside_a_jitted_scan(answer):
    @jax.jit
    def total_grad(x, bound):
        def step(carry, scale):
            return carry + jax.grad(lambda v: scale * loss(answer, v, bound))(x), None

        return jax.lax.scan(step, jnp.zeros(4), jnp.array([1.0, 2.0]))[0]

    want = sum(np.clip(s * np.asarray(WEIGHTS), -np.asarray(BOUND), np.asarray(BOUND)) for s in (1.0, 2.0))
    np.testing.assert_allclose(np.asarray(total_grad(jnp.ones(4), BOUND)), want)
