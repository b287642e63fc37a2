"""The gradient of the loss with respect to a hidden activation in a Flax NNX MLP (PyTorch's retain_grad).

JAX has no retained gradients on intermediate tensors; the functional equivalent is to add a zero
"probe" to the activation and differentiate with respect to the probe:

    h' = h + delta,  delta = 0   =>   d loss / d delta = d loss / d h

The probe enters the one forward pass through an optional keyword of `__call__`, so there is no second
copy of the forward pass. An ordinary call `model(x)` leaves it at `None` and computes exactly what it
did before, with nothing added, nothing stored on the module and no warning. With `delta = 0` the
probed forward pass gives the same output as the plain one.

`nnx.grad(..., argnums=(0, 1))` then returns both gradients in one backward pass: the Params of the
model (an nnx.State at the parameters' paths) and the probe's gradient (an array).

Why not `self.perturb(...)` with `nnx.capture`: flax 0.12 also offers that pattern, but `perturb`
called outside `nnx.capture`, i.e. in every ordinary `model(x)`, emits a DeprecationWarning and
stores a Variable on the module, which would change the model's state during normal
training and evaluation.
"""

import jax
import jax.numpy as jnp
from flax import nnx


class MLP(nnx.Module):
    """out(relu(hidden(x))), with an optional probe on the hidden activation."""

    def __init__(self, din: int, dhidden: int, dout: int, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(din, dhidden, rngs=rngs)
        self.out = nnx.Linear(dhidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array, *, hidden_probe: jax.Array | None = None) -> jax.Array:
        """Forward pass. `hidden_probe`, if given, is added to relu(hidden(x)) (pass zeros for gradients)."""
        h = nnx.relu(self.hidden(x))
        if hidden_probe is not None:
            h = h + hidden_probe
        return self.out(h)


def loss_and_activation_grad(model: MLP, x: jax.Array, y: jax.Array) -> tuple[jax.Array, nnx.State, jax.Array]:
    """Loss, parameter gradients, and d loss / d h for h = relu(model.hidden(x)).

    loss = mean((model(x) - y) ** 2). Returns (loss, param_grads, hidden_grad): param_grads is an
    nnx.State of the Params' gradients at their paths (param_grads["hidden"]["kernel"], ...), and
    hidden_grad has the shape of h, (batch, dhidden). The model's parameters are not changed. Works
    eagerly and inside nnx.jit.
    """
    dtype = jnp.result_type(x.dtype, model.hidden.kernel[...].dtype)
    probe = jnp.zeros((*x.shape[:-1], model.hidden.out_features), dtype=dtype)

    def loss_fn(model: MLP, probe: jax.Array) -> jax.Array:
        return jnp.mean((model(x, hidden_probe=probe) - y) ** 2)

    loss, (param_grads, hidden_grad) = nnx.value_and_grad(loss_fn, argnums=(0, 1))(model, probe)
    return loss, param_grads, hidden_grad
