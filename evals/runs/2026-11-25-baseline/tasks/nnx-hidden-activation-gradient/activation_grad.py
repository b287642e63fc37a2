"""Gradient w.r.t. a hidden activation in a Flax NNX MLP (the JAX analogue of retain_grad()).

JAX only differentiates with respect to function *inputs*, so the activation is made an input:
the forward pass takes an optional additive "probe" on the hidden activation,

    h = relu(hidden(x)) + probe        (probe = 0)

With probe = 0 nothing changes numerically, and because d h / d probe is the identity,
d loss / d probe == d loss / d h. One forward pass (the model's own __call__) serves both the
ordinary calls and the debugging call; ``model(x)`` without a probe is exactly
``out(relu(hidden(x)))`` as before and creates no extra state in the model.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

__all__ = ["MLP", "loss_and_activation_grad"]


class MLP(nnx.Module):
    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array, *, hidden_probe: jax.Array | None = None) -> jax.Array:
        h = nnx.relu(self.hidden(x))
        if hidden_probe is not None:
            # Zero-valued tap: lets callers differentiate w.r.t. the hidden activation.
            h = h + hidden_probe
        return self.out(h)


def loss_and_activation_grad(
    model: MLP, x: jax.Array, y: jax.Array
) -> tuple[jax.Array, nnx.State, jax.Array]:
    """Return (loss, param_grads, hidden_grad) for loss = mean((model(x) - y) ** 2).

    param_grads: nnx.State of d loss / d parameter, e.g. param_grads["hidden"]["kernel"].
    hidden_grad: d loss / d h for h = relu(hidden(x)), shape (batch, dhidden).
    Works eagerly and inside nnx.jit; the model's parameters are not modified.
    """
    # Split the model into its static structure, its parameters and any other state; the
    # gradient is taken w.r.t. the parameters and the probe only.
    graphdef, params, rest = nnx.split(model, nnx.Param, ...)

    kernel = model.hidden.kernel.value
    probe_dtype = jnp.result_type(x, kernel)
    probe = jnp.zeros(x.shape[:-1] + (model.hidden.out_features,), dtype=probe_dtype)

    def loss_fn(params: nnx.State, probe: jax.Array) -> jax.Array:
        m = nnx.merge(graphdef, params, rest)
        pred = m(x, hidden_probe=probe)
        return jnp.mean((pred - y) ** 2)

    loss, (param_grads, hidden_grad) = jax.value_and_grad(loss_fn, argnums=(0, 1))(params, probe)
    return loss, param_grads, hidden_grad
