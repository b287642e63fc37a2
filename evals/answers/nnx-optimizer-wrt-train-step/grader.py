"""Grade `nnx_train`: an nnx.Optimizer train step that matches optax.adam on a pure-JAX model."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

STEPS, LEARNING_RATE = 6, 0.05


class Calls(nnx.Variable):
    """A counter the model writes on every call: state that is not a parameter."""


class Regressor(nnx.Module):
    """Linear -> relu -> Linear, counting its calls."""

    def __init__(self, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(3, 8, rngs=rngs)
        self.out = nnx.Linear(8, 1, rngs=rngs)
        self.calls = Calls(jnp.array(0))

    def __call__(self, x: jax.Array) -> jax.Array:
        self.calls[...] += 1
        return self.out(nnx.relu(self.hidden(x)))


def pure_loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    """The same model and loss on a plain dict of arrays."""
    h = jax.nn.relu(x @ params["hidden"]["kernel"] + params["hidden"]["bias"])
    prediction = h @ params["out"]["kernel"] + params["out"]["bias"]
    return jnp.mean((prediction - y) ** 2)


def reference_run(params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, list[float]]:
    """STEPS Adam steps with optax on the pure model; the losses before each step."""
    tx = optax.adam(LEARNING_RATE)
    state, losses = tx.init(params), []
    for _ in range(STEPS):
        loss, grads = jax.value_and_grad(pure_loss)(params, x, y)
        updates, state = tx.update(grads, state, params)
        params = optax.apply_updates(params, updates)
        losses.append(float(loss))
    return params, losses


def data() -> tuple[jax.Array, jax.Array]:
    kx, ky = jax.random.split(jax.random.key(7))
    return jax.random.normal(kx, (16, 3)), jax.random.normal(ky, (16, 1))


def test_steps_match_optax_adam(answer):
    x, y = data()
    model = Regressor(rngs=nnx.Rngs(0))
    start = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    want_params, want_losses = reference_run(start, x, y)

    optimizer = answer.create_optimizer(model, LEARNING_RATE)
    losses = [float(answer.train_step(model, optimizer, x, y)) for _ in range(STEPS)]

    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    got = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    for got_leaf, want_leaf in zip(jax.tree.leaves(got), jax.tree.leaves(want_params)):
        np.testing.assert_allclose(np.asarray(got_leaf), np.asarray(want_leaf), rtol=1e-5, atol=1e-6)
    assert int(optimizer.step[...]) == STEPS


def test_only_parameters_are_optimized_and_state_survives(answer):
    x, y = data()
    model = Regressor(rngs=nnx.Rngs(1))
    optimizer = answer.create_optimizer(model, LEARNING_RATE)
    optimized = nnx.to_flat_state(nnx.state(optimizer, nnx.OptState))
    assert not any("calls" in map(str, path) for path, _ in optimized), "the optimizer tracks the call counter"
    for _ in range(3):
        answer.train_step(model, optimizer, x, y)
    assert int(model.calls[...]) >= 3, "the counter written inside the step was lost: use nnx.jit"
