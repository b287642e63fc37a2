"""A learning-rate sweep that compiles the training function once.

Why every learning rate recompiled: the learning rate reached the jitted function as a static
argument (or as a Python float closed over when building ``optax.adam(learning_rate)`` outside and
capturing it), so it was a compile-time constant and each new value was a new cache key.

The fix: pass the learning rate as a *traced* argument and build ``optax.adam`` from it inside the
jitted function. Optax only multiplies the Adam direction by ``-learning_rate``, which works on a
traced scalar, so one compiled program serves every learning rate. The value is converted to a
strongly typed ``float32`` array first: a bare Python float is weakly typed, and mixing weak and strong
scalars between calls would be a different type and compile again.

``num_steps`` stays static (it is the length of the ``lax.scan`` and the shape of ``losses``), so a
sweep with a fixed number of steps compiles once; every new ``num_steps`` compiles once more. The data
and parameter shapes are part of the cache key as usual.

The whole training loop is one ``lax.scan`` inside the compiled program: no Python loop and no
host transfer per step.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import optax


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@partial(jax.jit, static_argnames="num_steps")
def _fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: jax.Array, num_steps: int):
    tx = optax.adam(learning_rate)  # learning_rate is a tracer: not baked into the program
    opt_state = tx.init(params)

    def step(carry, _):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    (params, _), losses = jax.lax.scan(step, (params, opt_state), xs=None, length=num_steps)
    return params, losses


def fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int) -> tuple[dict, jax.Array]:
    """Run ``num_steps`` full-batch ``optax.adam(learning_rate)`` steps on the mean squared error.

    params = {"w": f32[d, k], "b": f32[k]}. Returns ``(final_params, losses)``, ``losses[i]`` being the
    loss before step i (shape ``(num_steps,)``). Compiles once for all learning rates.
    """
    lr = jnp.asarray(learning_rate, dtype=jnp.float32)  # strongly typed: same type for every value
    return _fit(params, x, y, lr, num_steps=int(num_steps))


if __name__ == "__main__":
    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (128, 4))
    y = x @ jax.random.normal(kw, (4, 2)) + 0.5
    params = {"w": jnp.zeros((4, 2)), "b": jnp.zeros(2)}

    compiles: list[str] = []

    def on_compile(event: str, duration: float, **kwargs) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_compile)
    results = {lr: fit(params, x, y, lr, 200) for lr in (1e-3, 3e-3, 1e-2, 3e-2, 1e-1)}
    print("compilations during the sweep:", len(compiles))  # 1

    # Same numbers as building optax.adam with the Python float directly.
    reference_tx = optax.adam(1e-2)
    p, s = params, reference_tx.init(params)
    ref_losses = []
    for _ in range(200):
        loss, g = jax.value_and_grad(_loss)(p, x, y)
        u, s = reference_tx.update(g, s, p)
        p = optax.apply_updates(p, u)
        ref_losses.append(loss)
    assert jnp.allclose(results[1e-2][1], jnp.stack(ref_losses), rtol=1e-5, atol=1e-6)
    for lr, (_, losses) in results.items():
        print(f"lr {lr:g}: loss {float(losses[0]):.4f} -> {float(losses[-1]):.6f}")
