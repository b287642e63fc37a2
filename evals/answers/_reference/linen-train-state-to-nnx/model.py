"""A Flax NNX MLP trained with nnx.Optimizer and an nnx.jit step."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, hidden: int, dout: int, *, rngs: nnx.Rngs) -> None:
        self.linear1 = nnx.Linear(din, hidden, rngs=rngs)
        self.linear2 = nnx.Linear(hidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.linear2(nnx.relu(self.linear1(x)))


def create(seed: int, din: int = 4, hidden: int = 16, dout: int = 2) -> tuple[MLP, nnx.Optimizer]:
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    return model, nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)


def mse(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    loss, grads = nnx.value_and_grad(mse)(model, x, y)
    optimizer.update(model, grads)
    return loss
