"""Minimise a deterministic function with optax.lbfgs in one compiled while_loop."""

from collections.abc import Callable
from functools import partial

import jax
import optax


@partial(jax.jit, static_argnames=("fun", "maxiter"))
def minimize(fun: Callable, x0, maxiter: int = 100, tol: float = 1e-6):
    """Run L-BFGS from x0 until the gradient norm is below tol or maxiter steps; (solution, steps)."""
    solver = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(fun)

    def step(carry):
        x, state = carry
        value, grad = value_and_grad(x, state=state)
        updates, state = solver.update(grad, state, x, value=value, grad=grad, value_fn=fun)
        return optax.apply_updates(x, updates), state

    def keep_going(carry):
        _, state = carry
        count = optax.tree.get(state, "count")
        grad_norm = optax.tree.norm(optax.tree.get(state, "grad"))
        return (count == 0) | ((count < maxiter) & (grad_norm >= tol))

    x, state = jax.lax.while_loop(keep_going, step, (x0, solver.init(x0)))
    return x, optax.tree.get(state, "count")
