"""The MLP and its SGD training step, ported from Linen + TrainState to Flax NNX.

* ``MLP`` is an ``nnx.Module`` that owns its parameters (two ``nnx.Linear`` layers; same default
  initialisers as ``nn.Dense``: lecun-normal kernels, zero biases).
* ``create`` returns the model and an ``nnx.Optimizer`` wrapping ``optax.sgd(0.1)`` over the model's
  ``nnx.Param`` variables (``wrt=nnx.Param`` is required by current Flax).
* ``train_step`` is compiled with ``nnx.jit``: it takes the model and optimizer as arguments, and the
  parameter / optimizer-state updates made inside are propagated back to the Python objects, i.e. they
  are updated in place. Only the loss is returned. ``optimizer.update(model, grads)`` is the current
  (Flax >= 0.11) signature.

The step compiles once: later calls with the same shapes reuse the cached program (the graph
structure of model and optimizer does not change between steps).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, hidden: int, dout: int, *, rngs: nnx.Rngs):
        self.linear1 = nnx.Linear(din, hidden, rngs=rngs)
        self.linear2 = nnx.Linear(hidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.linear2(nnx.relu(self.linear1(x)))


def create(seed: int, din: int = 4, hidden: int = 16, dout: int = 2):
    """Return (model, optimizer): the MLP and an nnx.Optimizer with optax.sgd(0.1) over nnx.Param."""
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
    return model, optimizer


def _loss_fn(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One SGD step on mean((model(x) - y) ** 2), applied in place; returns the loss before it."""
    loss, grads = nnx.value_and_grad(_loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss


if __name__ == "__main__":
    # Sanity check: the step is a plain SGD step (p <- p - 0.1 * grad) and compiles only once.
    model, optimizer = create(0)
    x = jnp.ones((8, 4))
    y = jnp.zeros((8, 2))

    before = jax.tree.map(lambda a: a, nnx.state(model, nnx.Param))
    grads = nnx.grad(_loss_fn)(model, x, y)
    loss = train_step(model, optimizer, x, y)
    after = nnx.state(model, nnx.Param)
    expected = jax.tree.map(lambda p, g: p - 0.1 * g, before, grads)
    ok = all(
        bool(jnp.allclose(a, e, atol=1e-6))
        for a, e in zip(jax.tree.leaves(after), jax.tree.leaves(expected))
    )
    print("loss", float(loss), "plain SGD step:", ok)

    n_traces = []

    @nnx.jit
    def counted_step(model, optimizer, x, y):
        n_traces.append(1)  # runs only while tracing
        return train_step(model, optimizer, x, y)

    for _ in range(5):
        counted_step(model, optimizer, x, y)
    print("traces:", len(n_traces))
