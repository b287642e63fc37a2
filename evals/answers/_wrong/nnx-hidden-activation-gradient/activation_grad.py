"""The flax 0.10 pattern: self.perturb(...) stores a Perturbation attribute; differentiate Params and it."""

import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = jax.nn.relu(self.hidden(x))
        h = self.perturb("hidden_act", h)
        return self.out(h)


def loss_and_activation_grad(model: MLP, x: jax.Array, y: jax.Array):
    model(x)  # creates the zero perturbation for this input shape

    def loss(model: MLP) -> jax.Array:
        return jnp.mean((model(x) - y) ** 2)

    wrt = nnx.DiffState(0, nnx.Any(nnx.Param, nnx.Perturbation))
    value, grads = nnx.value_and_grad(loss, argnums=wrt)(model)
    return value, grads, grads["hidden_act"].value
