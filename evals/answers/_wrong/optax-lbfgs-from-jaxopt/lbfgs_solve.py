"""optax.lbfgs driven like Adam: update(grads, state, params) with no value, grad or value_fn."""

from collections.abc import Callable
from functools import partial

import jax
import optax


@partial(jax.jit, static_argnames=("fun", "maxiter"))
def minimize(fun: Callable, x0, maxiter: int = 100, tol: float = 1e-6):
    """Run L-BFGS from x0 until the gradient norm is below tol or maxiter steps; (solution, steps)."""
    solver = optax.lbfgs()

    def step(carry):
        x, state, _, count = carry
        grad = jax.grad(fun)(x)
        updates, state = solver.update(grad, state, x)
        return optax.apply_updates(x, updates), state, optax.tree.norm(grad), count + 1

    def keep_going(carry):
        _, _, grad_norm, count = carry
        return (count < maxiter) & (grad_norm >= tol)

    init = (x0, solver.init(x0), jax.numpy.inf, jax.numpy.array(0))
    x, _, _, count = jax.lax.while_loop(keep_going, step, init)
    return x, count
