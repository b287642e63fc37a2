"""Gradient of the loss w.r.t. a hidden activation of a Flax NNX MLP (PyTorch's retain_grad()).

JAX has no .grad attribute on intermediate arrays: a gradient exists only for the inputs of the
function being differentiated. The standard trick (Flax's `perturb`) is to add a zero-valued
perturbation to the activation, h' = h + delta with delta = 0, and differentiate w.r.t. delta:
d loss / d delta = d loss / d h, and the forward value is unchanged.

The perturbation is an optional keyword of __call__ instead of `self.perturb(...)`: on flax 0.12.12
`Module.perturb` called outside `nnx.capture` is deprecated and stores a new Variable on the module,
so every ordinary model(x) call would change the model's state. Here model(x) (delta=None) is
exactly out(relu(hidden(x))), stores nothing and emits no warning; there is one forward pass only.
"""

import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    """x -> out(relu(hidden(x)))."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array, hidden_perturbation: jax.Array | None = None) -> jax.Array:
        h = nnx.relu(self.hidden(x))
        if hidden_perturbation is not None:  # only for gradient probing; zero in practice
            h = h + hidden_perturbation
        return self.out(h)


def _loss(model: MLP, hidden_perturbation: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
    pred = model(x, hidden_perturbation=hidden_perturbation)
    return jnp.mean((pred - y) ** 2)


def loss_and_activation_grad(
    model: MLP, x: jax.Array, y: jax.Array
) -> tuple[jax.Array, nnx.State, jax.Array]:
    """Return (loss, param_grads, hidden_grad).

    loss = mean((model(x) - y) ** 2); param_grads is an nnx.State of d loss / d param with the
    model's paths (param_grads["hidden"]["kernel"], ...); hidden_grad = d loss / d h for
    h = relu(model.hidden(x)), shape (batch, dhidden). The parameters are not modified.
    Works eagerly and inside nnx.jit.
    """
    # Shape and dtype of h without computing anything (abstract evaluation).
    h_shape = jax.eval_shape(lambda m, x: nnx.relu(m.hidden(x)), model, x)
    zeros = jnp.zeros(h_shape.shape, h_shape.dtype)
    # argnums=(0, 1): gradients w.r.t. the model's nnx.Param Variables and w.r.t. the perturbation.
    loss, (param_grads, hidden_grad) = nnx.value_and_grad(_loss, argnums=(0, 1))(model, zeros, x, y)
    return loss, param_grads, hidden_grad
