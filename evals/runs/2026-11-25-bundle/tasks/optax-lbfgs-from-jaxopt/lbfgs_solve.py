"""jaxopt.LBFGS(fun=fun, maxiter=..., tol=...).run(x0)  ->  Optax.

`optax.lbfgs()` is L-BFGS (memory 10, like jaxopt's default history) followed by a zoom line search.
Its `update` needs three extra keyword arguments: the objective's `value` and `grad` at the current
point, and the objective itself as `value_fn` (the line search evaluates it at trial points).
`optax.value_and_grad_from_state` reuses the value and gradient the line search already computed at
the accepted point, so each step costs no extra evaluation for them.

The loop is one `jax.lax.while_loop` inside `jax.jit`: it stops when the L2 norm of the gradient
(over the whole pytree, as jaxopt's `error`) drops below `tol`, or after `maxiter` steps.
"""

from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import optax


@partial(jax.jit, static_argnums=0)
def _lbfgs_run(fun: Callable, x0, maxiter, tol):
    solver = optax.lbfgs()
    value_and_grad = optax.value_and_grad_from_state(fun)

    def step(carry):
        x, state, _ = carry
        value, grad = value_and_grad(x, state=state)
        updates, state = solver.update(grad, state, x, value=value, grad=grad, value_fn=fun)
        x = optax.apply_updates(x, updates)
        # The line search stored the gradient at the accepted point (the new x) in the state.
        grad_norm = optax.tree.norm(optax.tree.get(state, "grad"))
        return x, state, grad_norm

    def keep_going(carry):
        _, state, grad_norm = carry
        count = optax.tree.get(state, "count")
        return (count < maxiter) & (grad_norm >= tol)

    initial_grad_norm = optax.tree.norm(jax.grad(fun)(x0))  # already converged: zero steps
    x, state, _ = jax.lax.while_loop(keep_going, step, (x0, solver.init(x0), initial_grad_norm))
    return x, optax.tree.get(state, "count")


def minimize(fun: Callable, x0, maxiter: int = 100, tol: float = 1e-6):
    """Minimise a smooth deterministic `fun` from `x0` with optax.lbfgs.

    fun: plain Python function from a pytree shaped like x0 (float32 leaves) to a scalar.
    Returns (solution with the structure of x0, number of L-BFGS steps taken as an int32 array).
    Compiled once per (fun, x0 structure/shapes); maxiter and tol are traced, so changing them
    does not recompile.
    """
    x0 = jax.tree.map(jnp.asarray, x0)
    return _lbfgs_run(fun, x0, jnp.asarray(maxiter, jnp.int32), jnp.asarray(tol, jnp.float32))


if __name__ == "__main__":

    def rosenbrock(p):
        x = p["x"]
        return (1.0 - x[0]) ** 2 + 100.0 * (x[1] - x[0] ** 2) ** 2

    sol, steps = minimize(rosenbrock, {"x": jnp.array([-1.2, 1.0])}, maxiter=200, tol=1e-5)
    print(sol, int(steps), float(rosenbrock(sol)))
