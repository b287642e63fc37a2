"""An NNX MLP trained with an nnx.Optimizer and a compiled in-place train step.

Migrated from the Linen version (flax.linen MLP + flax.training.train_state.TrainState + jax.jit):

| Linen                                   | NNX (here)                                         |
| --------------------------------------- | -------------------------------------------------- |
| nn.compact, shapes inferred at init     | nnx.Linear layers built in __init__ (din given)    |
| model.init(PRNGKey(seed), x)["params"]  | MLP(..., rngs=nnx.Rngs(seed)) holds its parameters |
| TrainState.create(..., tx=optax.sgd)    | nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)|
| state.apply_gradients(grads=grads)      | optimizer.update(model, grads), in place           |
| @jax.jit, returns (new_state, loss)     | @nnx.jit, updates model/optimizer, returns loss    |

The layers are named Dense_0 / Dense_1 like Linen's auto-names, and nnx.Linear's kernel has the same
(in, out) layout and default initialisers (lecun_normal kernel, zero bias) as nn.Dense, so an old
Linen ``params`` dict can be loaded with ``load_linen_params``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx

LEARNING_RATE = 0.1


class MLP(nnx.Module):
    """MLP(x) = Linear(relu(Linear(x)))."""

    def __init__(self, din: int, hidden: int, dout: int, *, rngs: nnx.Rngs):
        self.Dense_0 = nnx.Linear(din, hidden, rngs=rngs)
        self.Dense_1 = nnx.Linear(hidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.Dense_1(nnx.relu(self.Dense_0(x)))


def create(seed: int, din: int = 4, hidden: int = 16, dout: int = 2) -> tuple[MLP, nnx.Optimizer]:
    """The model and an SGD(0.1) optimizer over its nnx.Param variables."""
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(LEARNING_RATE), wrt=nnx.Param)
    return model, optimizer


def load_linen_params(model: MLP, linen_params: dict) -> None:
    """Copy a Linen ``params`` dict ({"Dense_0": {"kernel", "bias"}, "Dense_1": ...}) into ``model``."""
    state = nnx.state(model, nnx.Param)
    nnx.replace_by_pure_dict(state, linen_params)
    nnx.update(model, state)


def _mse(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One SGD step on mean((model(x) - y) ** 2), applied in place; returns the loss before the step."""
    loss, grads = nnx.value_and_grad(_mse)(model, x, y)
    optimizer.update(model, grads)  # writes the new parameters into model
    return loss


if __name__ == "__main__":
    model, optimizer = create(0)
    x = jax.random.normal(jax.random.key(1), (32, 4))
    y = jax.random.normal(jax.random.key(2), (32, 2))

    # Count backend compilations of the train step.
    compiles: list[float] = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **kw: compiles.append(duration)
        if event == "/jax/core/compile/backend_compile_duration" else None
    )

    # 1) The step is a plain SGD step: new = old - 0.1 * grad, loss = loss before the step.
    before = jax.tree.map(jnp.copy, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    expected_loss, grads = nnx.value_and_grad(_mse)(model, x, y)
    grads = nnx.to_pure_dict(grads)
    n_before = len(compiles)
    loss = train_step(model, optimizer, x, y)
    first_call_compiles = len(compiles) - n_before
    after = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    assert jnp.allclose(loss, expected_loss, rtol=1e-6)
    diffs = jax.tree.map(lambda a, b, g: jnp.max(jnp.abs(a - (b - LEARNING_RATE * g))), after, before, grads)
    max_diff = max(float(d) for d in jax.tree.leaves(diffs))
    print("max |param - (old - 0.1 * grad)| =", max_diff)
    assert max_diff < 1e-6

    # 2) It compiles once: 50 more steps add no compilation.
    n_first = len(compiles)
    losses = [float(train_step(model, optimizer, x, y)) for _ in range(50)]
    print("step compilations: first call", first_call_compiles, "| next 50 calls", len(compiles) - n_first)
    assert first_call_compiles == 1 and len(compiles) == n_first
    assert int(optimizer.step[...]) == 51
    print(f"loss {float(loss):.4f} -> {losses[-1]:.4f}")
    assert losses[-1] < float(loss)

    # 3) Same architecture as the Linen model: its parameters load and give the same outputs.
    import flax.linen as nn

    class LinenMLP(nn.Module):
        hidden: int
        out: int

        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Dense(self.hidden)(x))  # same order as the old model: Dense_0 first
            return nn.Dense(self.out)(x)

    linen_params = LinenMLP(16, 2).init(jax.random.key(0), jnp.ones((1, 4)))["params"]
    fresh, _ = create(0)
    load_linen_params(fresh, linen_params)
    assert jnp.allclose(fresh(x), LinenMLP(16, 2).apply({"params": linen_params}, x), atol=1e-6)
    print("Linen params load into the NNX model and give the same outputs")
