"""The MLP trained with a compiled SGD step, in Flax NNX (flax 0.12).

Migrated from the Linen version (``nn.Module`` + ``flax.training.train_state.TrainState`` + a
``jax.jit`` step):

| Linen                                         | NNX (here)                                             |
| --------------------------------------------- | ------------------------------------------------------ |
| ``nn.Dense(features)`` with shape inference   | ``nnx.Linear(din, dout, rngs=...)``: input size given  |
| ``model.init(key, x)["params"]``              | the constructor creates the Params from ``nnx.Rngs``   |
| ``TrainState.create(..., tx=optax.sgd(0.1))`` | ``nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)``|
| ``state.apply_gradients(grads=grads)``        | ``optimizer.update(model, grads)``, in place           |
| ``@jax.jit`` returning a new state            | ``@nnx.jit``: updates are written back to the objects  |

Same architecture (Dense(hidden) -> relu -> Dense(dout); ``nnx.Linear`` has Linen's default
initialisers: LeCun-normal kernel, zero bias, kernel layout (in, out)) and the same optimizer. The
attributes are named ``Dense_0``/``Dense_1`` like Linen's auto-names, so old Linen parameters load with
``load_linen_params``.

Current-API notes (flax >= 0.11): ``nnx.Optimizer`` needs ``wrt=`` and ``update`` takes the model;
Variables are read with ``v[...]`` (``.value`` is deprecated).
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
    """The model (initialised from ``seed``) and an SGD(0.1) optimizer over its ``nnx.Param``s."""
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(LEARNING_RATE), wrt=nnx.Param)
    return model, optimizer


def _loss_fn(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One SGD step on mean((model(x) - y) ** 2), applied to model and optimizer in place.

    Returns the loss before the step. Compiled once per input shape/dtype.
    """
    loss, grads = nnx.value_and_grad(_loss_fn)(model, x, y)
    optimizer.update(model, grads)  # writes the new parameters into `model`
    return loss


def load_linen_params(model: MLP, linen_params: dict) -> None:
    """Copy the ``params`` of the old Linen model (``{"Dense_0": {...}, "Dense_1": {...}}``) into ``model``."""
    params = nnx.state(model, nnx.Param)
    nnx.replace_by_pure_dict(params, linen_params)
    nnx.update(model, params)


if __name__ == "__main__":
    # Self-check: the step is plain SGD (p <- p - 0.1 * grad) and compiles once.
    model, optimizer = create(0)
    x = jax.random.normal(jax.random.key(1), (32, 4))
    y = jnp.stack([x.sum(axis=1), x[:, 0] - x[:, 1]], axis=1)

    before = jax.tree.map(jnp.copy, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    expected_loss, grads = nnx.value_and_grad(_loss_fn)(model, x, y)
    expected = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, before, nnx.to_pure_dict(grads))

    compiles: list[str] = []

    def on_compile(event: str, duration: float, **kwargs) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_compile)
    loss = train_step(model, optimizer, x, y)
    n_first = len(compiles)
    losses = [train_step(model, optimizer, x, y) for _ in range(49)]
    n_after = len(compiles)

    # The first step of a fresh copy, against the hand-written SGD update.
    model_check, optimizer_check = create(0)
    train_step(model_check, optimizer_check, x, y)
    after_one = nnx.to_pure_dict(nnx.state(model_check, nnx.Param))
    for got, want in zip(jax.tree.leaves(after_one), jax.tree.leaves(expected)):
        assert jnp.allclose(got, want, atol=1e-6)
    assert jnp.allclose(loss, expected_loss, atol=1e-6)
    assert n_after == n_first, "train_step compiled again"
    assert float(losses[-1]) < float(loss)
    assert int(optimizer.step[...]) == 50
    print(f"loss {float(loss):.4f} -> {float(losses[-1]):.4f}; compilations of the step: {n_first} (then 0)")
