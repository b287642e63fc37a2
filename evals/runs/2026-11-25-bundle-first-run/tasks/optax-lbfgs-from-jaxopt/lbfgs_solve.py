"""Optax replacement for ``jaxopt.LBFGS(fun=fun, maxiter=maxiter, tol=tol).run(x0)``.

``optax.lbfgs()`` is L-BFGS with a zoom line search (the same family as jaxopt's default). Its
``update`` needs three extra keyword arguments: ``value`` and ``grad`` at the current point and
``value_fn`` (the objective, which the line search evaluates). ``optax.value_and_grad_from_state``
reuses the value and gradient the line search already computed at the accepted point, so each step
costs no extra evaluation. The whole loop runs inside one ``jax.lax.while_loop`` under ``jax.jit``.

Mapping from jaxopt:
    jaxopt.LBFGS(fun, maxiter, tol).run(x0)  ->  minimize(fun, x0, maxiter=..., tol=...)
    result.params                            ->  first return value
    result.state.iter_num                    ->  second return value (steps taken)
    stopping rule: gradient L2 norm < tol, or maxiter steps (at least one step, as in jaxopt,
    whose initial error is +inf).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import optax

PyTree = Any


@partial(jax.jit, static_argnames=("fun", "maxiter"))
def _lbfgs_run(
    fun: Callable[[PyTree], jax.Array], x0: PyTree, tol: jax.Array, maxiter: int
) -> tuple[PyTree, jax.Array]:
    solver = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(fun)

    def step(carry: tuple[PyTree, optax.OptState]) -> tuple[PyTree, optax.OptState]:
        x, state = carry
        value, grad = value_and_grad(x, state=state)
        updates, state = solver.update(grad, state, x, value=value, grad=grad, value_fn=fun)
        return optax.apply_updates(x, updates), state

    def keep_going(carry: tuple[PyTree, optax.OptState]) -> jax.Array:
        _, state = carry
        count = optax.tree.get(state, "count")
        # Gradient at the current iterate, stored by the line search (zeros before the first step,
        # hence the explicit "count == 0": always take the first step, as jaxopt does).
        grad_norm = optax.tree.norm(optax.tree.get(state, "grad"))
        return (count < maxiter) & ((count == 0) | (grad_norm >= tol))

    x, state = jax.lax.while_loop(keep_going, step, (x0, solver.init(x0)))
    return x, optax.tree.get(state, "count")


def minimize(
    fun: Callable[[PyTree], jax.Array], x0: PyTree, maxiter: int = 100, tol: float = 1e-6
) -> tuple[PyTree, jax.Array]:
    """Minimise the smooth, deterministic ``fun`` from ``x0`` with Optax's L-BFGS.

    Returns ``(solution, num_steps)``: the solution has the structure of ``x0``; ``num_steps`` is an
    int32 array, the number of L-BFGS steps taken. Stops when the gradient's L2 norm (over the whole
    pytree) falls below ``tol`` or after ``maxiter`` steps.

    ``fun`` and ``maxiter`` are static (one compilation per distinct function object and maxiter);
    ``tol`` is traced, so changing it does not recompile. Define ``fun`` once at module level rather
    than as a fresh lambda per call if you call this in a loop.
    """
    x0 = jax.tree.map(jnp.asarray, x0)
    return _lbfgs_run(fun, x0, jnp.asarray(tol, dtype=jnp.float32), int(maxiter))


if __name__ == "__main__":

    def rosenbrock(x: jax.Array) -> jax.Array:
        return (1.0 - x[0]) ** 2 + 100.0 * (x[1] - x[0] ** 2) ** 2

    sol, steps = minimize(rosenbrock, jnp.array([-1.2, 1.0]), maxiter=100, tol=1e-6)
    print(sol, int(steps))
    assert jnp.allclose(sol, 1.0, atol=1e-3) and int(steps) < 100

    def quad(p: dict) -> jax.Array:
        return jnp.sum((p["a"] - 3.0) ** 2) + jnp.sum((p["b"] + 1.0) ** 2)

    sol, steps = minimize(quad, {"a": jnp.zeros(3), "b": jnp.zeros((2, 2))}, maxiter=50, tol=1e-5)
    print(sol, int(steps))
    assert jnp.allclose(sol["a"], 3.0, atol=1e-4) and jnp.allclose(sol["b"], -1.0, atol=1e-4)

    _, steps = minimize(rosenbrock, jnp.array([-1.2, 1.0]), maxiter=3, tol=1e-6)
    assert int(steps) == 3
