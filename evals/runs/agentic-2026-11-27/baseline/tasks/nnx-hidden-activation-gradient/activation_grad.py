"""Gradient w.r.t. a hidden activation in a Flax NNX MLP (like PyTorch's retain_grad()).

Trick: the forward pass accepts an optional additive perturbation of the hidden
activation h. With a zero perturbation the output is unchanged, and
d loss / d perturbation == d loss / d h. Ordinary calls model(x) don't pass it, so
they behave exactly as before and nothing is stored on the model (unlike
Module.perturb, which adds a batch-shaped Perturbation variable to the model).
"""
import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x, hidden_perturbation=None):
        h = nnx.relu(self.hidden(x))
        if hidden_perturbation is not None:
            # zero-valued tap: value unchanged, gradient w.r.t. it == d loss / d h
            h = h + hidden_perturbation
        return self.out(h)


def loss_and_activation_grad(model: MLP, x: jax.Array, y: jax.Array):
    """Return (loss, param_grads, hidden_grad).

    loss        = mean((model(x) - y) ** 2)
    param_grads = nnx.State of d loss / d param (param_grads["hidden"]["kernel"], ...)
    hidden_grad = d loss / d h, h = relu(hidden(x)), shape (batch, dhidden)
    """
    h_shape = jax.eval_shape(lambda x: model.hidden(x), x)
    delta = jnp.zeros(h_shape.shape, h_shape.dtype)

    def loss_fn(model, delta):
        pred = model(x, hidden_perturbation=delta)
        return jnp.mean((pred - y) ** 2)

    # argnums=(0, 1): grads w.r.t. the model's nnx.Param variables and the tap.
    loss, (param_grads, hidden_grad) = nnx.value_and_grad(loss_fn, argnums=(0, 1))(model, delta)
    return loss, param_grads, hidden_grad
