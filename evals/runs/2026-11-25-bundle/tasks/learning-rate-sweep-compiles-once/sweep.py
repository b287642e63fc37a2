"""Full-batch Adam training whose learning-rate sweep compiles once.

Why every learning rate recompiled: the learning rate reached the compiled program as a Python
constant (a static argument, or a value closed over when the jitted function was built), so it was
part of the compilation cache key, and each new value meant a new trace and a new XLA compilation.

The fix: pass the learning rate into the jitted function as an *array argument*. It is then a traced
input of the program, and `optax.adam(learning_rate)` built inside the trace uses it as a runtime
value (Adam only multiplies the update by -learning_rate). Every value reuses the same executable.
It is converted to a strongly typed float32 scalar before the call, so a Python float, a NumPy
scalar or a jnp value all hit the same cache entry (a weak vs strong type would be a different
signature).

Only `num_steps` stays static: it is the length of the `lax.scan` and the shape of `losses`.
(For a learning rate you want to change *between steps of one run*, use
`optax.inject_hyperparams(optax.adam)(learning_rate=...)`, which stores it in the optimizer state.)

The results match `optax.adam(learning_rate)` built with a Python constant: in both cases the
float32 value of the learning rate multiplies the same Adam update (at most last-bit differences
if XLA folds the constant differently).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@functools.partial(jax.jit, static_argnames=("num_steps",))
def _fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: jax.Array, num_steps: int):
    tx = optax.adam(learning_rate)  # learning_rate is a tracer: a runtime input, not a constant
    opt_state = tx.init(params)

    def step(carry, _):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    (params, _), losses = jax.lax.scan(step, (params, opt_state), None, length=num_steps)
    return params, losses


def fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int):
    """num_steps full-batch optax.adam(learning_rate) steps on mean((x @ w + b - y) ** 2).

    params = {"w": f32[d, k], "b": f32[k]}. Returns (final_params, losses) with losses[i] the loss
    before step i (shape (num_steps,)). Different learning rates (same shapes and num_steps) reuse
    one compilation.
    """
    lr = jnp.asarray(learning_rate, dtype=jnp.float32)  # strongly typed f32 scalar: one signature
    return _fit(params, x, y, lr, int(num_steps))


if __name__ == "__main__":
    compiles = []

    def listener(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(kwargs.get("fun_name"))

    jax.monitoring.register_event_duration_secs_listener(listener)

    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (128, 8))
    y = x @ jax.random.normal(kw, (8, 2))
    params = {"w": jnp.zeros((8, 2)), "b": jnp.zeros(2)}
    for lr in [1e-3, 3e-3, 1e-2, 3e-2, 1e-1]:
        final, losses = fit(params, x, y, lr, 200)
        print(f"lr={lr:g}: loss {float(losses[0]):.3f} -> {float(losses[-1]):.5f}")
    print("compilations of _fit:", compiles.count("jit(_fit)"))  # 1
