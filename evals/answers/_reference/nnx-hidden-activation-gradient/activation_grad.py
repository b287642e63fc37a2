"""perturb() inside nnx.capture: the gradient with respect to the perturbation is the activation's gradient."""

import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = jax.nn.relu(self.hidden(x))
        h = self.perturb("hidden_act", h, capture_noop=True)  # a no-op outside nnx.capture
        return self.out(h)


def loss_and_activation_grad(model: MLP, x: jax.Array, y: jax.Array):
    _, perturbations = nnx.capture(model, nnx.Perturbation)(x)  # zeros shaped like the activation

    def loss(model: MLP, perturbations: nnx.State) -> jax.Array:
        prediction, _ = nnx.capture(model, nnx.Intermediate, init=perturbations)(x)
        return jnp.mean((prediction - y) ** 2)

    value, (param_grads, perturbation_grads) = nnx.value_and_grad(loss, argnums=(0, 1))(model, perturbations)
    return value, param_grads, perturbation_grads["hidden_act"][...]
