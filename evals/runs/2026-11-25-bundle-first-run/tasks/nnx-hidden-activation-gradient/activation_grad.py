"""Gradient of the loss with respect to a hidden activation of a Flax NNX MLP (PyTorch's retain_grad()).

How it works: the gradient with respect to an intermediate value h equals the gradient with respect
to a perturbation added to h, taken at perturbation = 0 (d loss(h + e)/de at e = 0 is d loss/dh).
The model's one forward pass takes an optional ``hidden_perturbation`` that is added to
h = relu(hidden(x)); ``loss_and_activation_grad`` passes zeros there and differentiates with respect
to the model's Params and that argument together, in one backward pass. Called as ``model(x)`` the
argument is ``None`` and the forward pass is exactly out(relu(hidden(x))): nothing is added, nothing
is stored on the module, and training/evaluation code is unaffected.

Why not ``self.perturb(...)`` + ``nnx.capture``: Flax's built-in version of the same idea needs the
``perturb`` call inside ``__call__``, and on flax 0.12.12 every ordinary ``model(x)`` made outside
``nnx.capture`` then emits ``DeprecationWarning: Using 'Module.perturb()' outside of
'nnx.capture()' is deprecated`` and stores a new ``nnx.Perturbation`` Variable on the module (its
state grows), unless the process-wide flag ``flax.config.nnx_sow_capture_noop`` is switched on. The
explicit argument keeps ``model(x)`` exactly as before without touching global configuration.
"""

import jax
import jax.numpy as jnp
from flax import nnx

__all__ = ["MLP", "loss_and_activation_grad"]


class MLP(nnx.Module):
    """Linear -> relu -> Linear, with an optional tap on the hidden activation."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array, *, hidden_perturbation: jax.Array | None = None) -> jax.Array:
        """out(relu(hidden(x))).

        hidden_perturbation: for gradient probing only; if given (shape (batch, dhidden)), it is
        added to h = relu(hidden(x)). Pass zeros and differentiate with respect to it to get
        d output / d h. Leave it out in training and evaluation.
        """
        h = nnx.relu(self.hidden(x))
        if hidden_perturbation is not None:  # a Python-level choice: model(x) traces without it
            h = h + hidden_perturbation
        return self.out(h)


def loss_and_activation_grad(model: MLP, x: jax.Array, y: jax.Array) -> tuple[jax.Array, nnx.State, jax.Array]:
    """(loss, param_grads, hidden_grad) for loss = mean((model(x) - y) ** 2).

    param_grads: an nnx.State of d loss / d parameter at each Param's path
    (param_grads["hidden"]["kernel"], ["hidden"]["bias"], ["out"]["kernel"], ["out"]["bias"]).
    hidden_grad: d loss / d h for h = relu(hidden(x)), shape (batch, dhidden).
    Works eagerly and inside nnx.jit; the model's parameters are not changed.
    """
    hidden_kernel = model.hidden.kernel[...]
    zeros = jnp.zeros(x.shape[:-1] + (hidden_kernel.shape[-1],), dtype=hidden_kernel.dtype)

    def loss_fn(model: MLP, hidden_perturbation: jax.Array) -> jax.Array:
        prediction = model(x, hidden_perturbation=hidden_perturbation)
        return jnp.mean((prediction - y) ** 2)

    # argnums=(0, 1): the module's nnx.Param Variables (nnx.grad's default filter for a module)
    # and the perturbation array, both from the same forward and backward pass.
    loss, (param_grads, hidden_grad) = nnx.value_and_grad(loss_fn, argnums=(0, 1))(model, zeros)
    return loss, param_grads, hidden_grad


if __name__ == "__main__":
    model = MLP(3, 16, 2, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(1), (8, 3))
    y = jax.random.normal(jax.random.key(2), (8, 2))

    loss, param_grads, hidden_grad = loss_and_activation_grad(model, x, y)
    jitted = nnx.jit(loss_and_activation_grad)(model, x, y)

    # Check against a hand-written split of the forward pass (for this check only).
    h = nnx.relu(model.hidden(x))
    expected = jax.grad(lambda h: jnp.mean((model.out(h) - y) ** 2))(h)
    assert hidden_grad.shape == (8, 16)
    assert jnp.allclose(hidden_grad, expected, atol=1e-6)
    assert jnp.allclose(jitted[2], expected, atol=1e-6)
    assert param_grads["hidden"]["kernel"].shape == (3, 16)
    print(float(loss), float(jnp.abs(hidden_grad).mean()))
