"""The MLP trained with plain SGD, ported from Flax Linen + TrainState to Flax NNX (flax 0.12).

What maps to what:

    Linen                                          NNX
    -----                                          ---
    nn.Module dataclass, shapes inferred at init   nnx.Module holding its own Variables; input
                                                   sizes given to the constructor
    model.init(PRNGKey(seed), x)["params"]         MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    nn.Dense(features)                             nnx.Linear(in_features, out_features)
    TrainState.create(apply_fn, params, tx)        nnx.Optimizer(model, tx, wrt=nnx.Param)
    state.apply_gradients(grads=grads)             optimizer.update(model, grads)  (in place)
    @jax.jit step returning a new state            @nnx.jit step updating model/optimizer in place

Current-API points (flax 0.11+): `nnx.Optimizer` needs `wrt=` and `update` needs the model
(`optimizer.update(model, grads)`, not `optimizer.update(grads)`); read Variables with `v[...]`
(`.value` is deprecated).

The layers keep Linen's auto-names (`Dense_0`, `Dense_1`) and kernel layout (in, out), so existing
Linen params can be loaded with `load_linen_params`. Initialisers are the same as Linen's
(LeCun-normal kernels, zero biases), but the same seed draws different numbers than
`model.init(PRNGKey(seed), ...)` did, so a fresh NNX model is not bitwise the Linen one.

Run `python model.py` to check that the step is exactly a plain SGD step (p - 0.1 * grad) and that
the train step is traced/compiled only once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from flax import nnx

LEARNING_RATE = 0.1


class MLP(nnx.Module):
    """Linear -> relu -> Linear, like the Linen MLP(hidden, out)."""

    def __init__(self, din: int, hidden: int, dout: int, *, rngs: nnx.Rngs):
        self.Dense_0 = nnx.Linear(din, hidden, rngs=rngs)
        self.Dense_1 = nnx.Linear(hidden, dout, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.Dense_1(nnx.relu(self.Dense_0(x)))


def create(seed: int, din: int = 4, hidden: int = 16, dout: int = 2) -> tuple[MLP, nnx.Optimizer]:
    """The model and an nnx.Optimizer with optax.sgd(0.1) over the model's nnx.Param variables."""
    model = MLP(din, hidden, dout, rngs=nnx.Rngs(seed))
    optimizer = nnx.Optimizer(model, optax.sgd(LEARNING_RATE), wrt=nnx.Param)
    return model, optimizer


def _loss_fn(model: MLP, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    """One SGD step on mean((model(x) - y) ** 2), applied to model and optimizer in place.

    Returns the loss before the step.
    """
    loss, grads = nnx.value_and_grad(_loss_fn)(model, x, y)  # grads w.r.t. the nnx.Param Variables
    optimizer.update(model, grads)  # writes the new parameters into `model`, bumps optimizer.step
    return loss


def load_linen_params(model: MLP, linen_params: dict) -> None:
    """Copy the `params` dict of the old Linen model (Dense_0/Dense_1 kernel+bias) into `model`."""
    state = nnx.state(model, nnx.Param)
    nnx.replace_by_pure_dict(state, linen_params)
    nnx.update(model, state)


if __name__ == "__main__":
    traces: list[int] = []

    @nnx.jit
    def counted_step(model, optimizer, x, y):
        traces.append(1)  # runs only while tracing
        return train_step(model, optimizer, x, y)

    model, optimizer = create(0)
    kx, ky = jax.random.split(jax.random.key(1))
    x = jax.random.normal(kx, (32, 4))
    y = jax.random.normal(ky, (32, 2))

    # 1. The step is plain SGD: new params == old params - 0.1 * grad, and the loss is pre-step.
    before = jax.tree.map(jnp.copy, nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    expected_loss, grads = nnx.value_and_grad(_loss_fn)(model, x, y)
    loss = counted_step(model, optimizer, x, y)
    after = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    expected = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, before, nnx.to_pure_dict(grads))
    assert jnp.allclose(loss, expected_loss)
    assert all(jax.tree.leaves(jax.tree.map(lambda a, b: jnp.allclose(a, b, atol=1e-6), after, expected)))
    assert int(optimizer.step[...]) == 1

    # 2. Compiles once: further steps reuse the program.
    losses = [float(counted_step(model, optimizer, x, y)) for _ in range(50)]
    assert len(traces) == 1, traces
    assert losses[-1] < float(loss)
    print(f"loss {float(loss):.4f} -> {losses[-1]:.4f}; traced {len(traces)} time(s)")
