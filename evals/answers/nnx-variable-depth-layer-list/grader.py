"""Grade `deep_mlp`: an NNX MLP of variable depth whose layers are all trainable parameters."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import nnx

DIN, DOUT, LEARNING_RATE = 3, 2, 0.1
DEPTHS = {"one layer": [], "four layers": [5, 7, 4]}  # distinct widths: each kernel shape is unique


def layers_in_order(model: nnx.Module, din: int) -> list[tuple[tuple, dict]]:
    """(path, {"kernel", "bias"}) of each Linear, chained from the input width by kernel shape."""
    by_parent: dict[tuple, dict] = {}
    for path, variable in nnx.to_flat_state(nnx.state(model, nnx.Param)):
        by_parent.setdefault(tuple(path[:-1]), {})[path[-1]] = np.asarray(variable[...])
    layers, width = [], din
    while by_parent:
        matches = [parent for parent, p in by_parent.items() if p["kernel"].shape[0] == width]
        assert len(matches) == 1, f"no single layer takes width {width}: {sorted(by_parent)}"
        params = by_parent.pop(matches[0])
        assert set(params) == {"kernel", "bias"}, f"layer {matches[0]} has Params {sorted(params)}"
        layers.append((matches[0], params))
        width = params["kernel"].shape[1]
    return layers


def pure_forward(params: list[dict], x: jax.Array) -> jax.Array:
    """The MLP on a list of {"kernel", "bias"} dicts."""
    for i, layer in enumerate(params):
        x = x @ layer["kernel"] + layer["bias"]
        if i < len(params) - 1:
            x = jax.nn.relu(x)
    return x


def data() -> tuple[jax.Array, jax.Array]:
    kx, ky = jax.random.split(jax.random.key(3))
    return jax.random.normal(kx, (16, DIN)), jax.random.normal(ky, (16, DOUT))


@nnx.jit
def sgd_step(model: nnx.Module, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    loss, grads = nnx.value_and_grad(lambda m: jnp.mean((m(x) - y) ** 2))(model)
    optimizer.update(model, grads)
    return loss


@pytest.mark.parametrize("hidden", DEPTHS.values(), ids=DEPTHS.keys())
def test_every_layer_is_a_parameter_and_the_forward_pass_is_right(answer, hidden):
    model = answer.MLP(DIN, hidden, DOUT, rngs=nnx.Rngs(0))
    layers = layers_in_order(model, DIN)
    assert len(layers) == len(hidden) + 1, "nnx.state(model, nnx.Param) does not hold every layer"
    assert layers[-1][1]["kernel"].shape[1] == DOUT
    x, _ = data()
    np.testing.assert_allclose(model(x), pure_forward([p for _, p in layers], x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("hidden", DEPTHS.values(), ids=DEPTHS.keys())
def test_one_optimizer_step_trains_every_layer(answer, hidden):
    model = answer.MLP(DIN, hidden, DOUT, rngs=nnx.Rngs(1))
    x, y = data()
    before = layers_in_order(model, DIN)
    params = [p for _, p in before]
    grads = jax.grad(lambda ps: jnp.mean((pure_forward(ps, x) - y) ** 2))(params)
    want = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    optimizer = nnx.Optimizer(model, optax.sgd(LEARNING_RATE), wrt=nnx.Param)
    sgd_step(model, optimizer, x, y)
    after = dict(layers_in_order(model, DIN))
    for (path, old), new in zip(before, want):
        got = after[path]
        assert not np.array_equal(got["kernel"], old["kernel"]), f"layer {path} was not trained"
        for name in ("kernel", "bias"):
            np.testing.assert_allclose(got[name], new[name], rtol=1e-5, atol=1e-6)
