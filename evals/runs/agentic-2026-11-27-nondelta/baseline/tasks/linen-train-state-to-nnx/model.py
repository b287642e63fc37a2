"""The MLP, ported from Linen + TrainState to Flax NNX.

Mapping from the Linen version:

* ``nn.Dense(features)`` (input size inferred at ``init``)  ->
  ``nnx.Linear(in_features, out_features, rngs=...)`` (sizes given up front,
  parameters created eagerly in ``__init__``; same default initialisers:
  lecun-normal kernel, zero bias).
* ``TrainState.create(apply_fn, params, tx)``  ->  the module itself holds the
  parameters, and ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` holds the
  optimizer state and the step count.
* ``state.apply_gradients(grads=grads)`` returning a new state  ->
  ``optimizer.update(model, grads)``, which updates ``model`` and
  ``optimizer`` in place.
* ``@jax.jit``  ->  ``@nnx.jit``, which accepts modules/optimizers as
  arguments and propagates their in-place updates back to the caller.
"""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    """MLP(x) = Linear(relu(Linear(x)))."""

    def __init__(self, din: int, hidden: int, dout: int, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, hidden, rngs=rngs)
        self.linear2 = nnx.Linear(hidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        x = nnx.relu(self.linear1(x))
        return self.linear2(x)


# One optax transformation shared by every optimizer `create` builds.  The
# transformation is static (hashed by identity) in the optimizer's graph
# definition, so a fresh `optax.sgd(0.1)` per `create` call would make
# `train_step` recompile for every new model/optimizer pair.
TX = optax.sgd(0.1)


def create(seed: int, din: int = 4, hidden: int = 16, dout: int = 2):
    """Returns (model, optimizer): the MLP and SGD(0.1) over its nnx.Param variables."""
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, TX, wrt=nnx.Param)
    return model, optimizer


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One SGD step on mean((model(x) - y) ** 2), in place; returns the loss before the step."""

    def loss_fn(model: MLP) -> jax.Array:
        return jnp.mean((model(x) - y) ** 2)

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


if __name__ == "__main__":
    # Quick self-check: the step is a plain SGD step and compiles only once.
    model, optimizer = create(0)
    x = jax.random.normal(jax.random.key(1), (8, 4))
    y = jax.random.normal(jax.random.key(2), (8, 2))
    for i in range(5):
        print(f"step {i}: loss {float(train_step(model, optimizer, x, y)):.6f}")
