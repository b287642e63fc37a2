"""Grade `activation_grad`: the loss gradient with respect to a hidden activation of an NNX MLP, and the params'."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

DIN, DHIDDEN, DOUT, BATCH = 4, 8, 3, 6  # one batch size throughout


def data(seed: int):
    rng = np.random.default_rng(seed)
    return (jnp.asarray(rng.normal(size=(BATCH, DIN)).astype(np.float32)),
            jnp.asarray(rng.normal(size=(BATCH, DOUT)).astype(np.float32)))


def weights(model) -> dict:
    return {name: np.asarray(variable[...]) for name, variable in (
        ("w1", model.hidden.kernel), ("b1", model.hidden.bias), ("w2", model.out.kernel), ("b2", model.out.bias))}


def expected(w: dict, x, y):
    """Plain JAX: the loss, the gradients of the four parameters, and d loss / d h with h = relu(x w1 + b1)."""
    def from_hidden(h, w2, b2):
        return jnp.mean((h @ w2 + b2 - y) ** 2)

    def loss(w1, b1, w2, b2):
        return from_hidden(jax.nn.relu(x @ w1 + b1), w2, b2)

    value, grads = jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(w["w1"], w["b1"], w["w2"], w["b2"])
    h = jax.nn.relu(x @ w["w1"] + w["b1"])
    return value, dict(zip(("w1", "b1", "w2", "b2"), grads)), jax.grad(from_hidden)(h, w["w2"], w["b2"])


def as_array(leaf) -> np.ndarray:
    return np.asarray(leaf[...] if isinstance(leaf, nnx.Variable) else leaf)


def check(result, w, x, y):
    loss, param_grads, hidden_grad = result
    want_loss, want_grads, want_hidden = expected(w, x, y)
    np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-5)
    assert np.shape(hidden_grad) == (BATCH, DHIDDEN)
    np.testing.assert_allclose(as_array(hidden_grad), np.asarray(want_hidden), rtol=1e-4, atol=1e-6,
                               err_msg="not the gradient with respect to the hidden activation")
    for name, (layer, param) in {"w1": ("hidden", "kernel"), "b1": ("hidden", "bias"),
                                 "w2": ("out", "kernel"), "b2": ("out", "bias")}.items():
        np.testing.assert_allclose(as_array(param_grads[layer][param]), np.asarray(want_grads[name]), rtol=1e-4,
                                   atol=1e-6, err_msg=f"gradient of {layer}.{param}")


@pytest.mark.parametrize("jitted", [False, True], ids=["eager", "nnx.jit"])
def test_activation_and_parameter_gradients(answer, jitted):
    model = answer.MLP(DIN, DHIDDEN, DOUT, rngs=nnx.Rngs(1))
    w = weights(model)
    x, y = data(0)
    fn = nnx.jit(answer.loss_and_activation_grad) if jitted else answer.loss_and_activation_grad
    check(fn(model, x, y), w, x, y)
    x2, y2 = data(1)
    check(fn(model, x2, y2), w, x2, y2)
    for name, now in weights(model).items():
        np.testing.assert_array_equal(now, w[name], err_msg=f"{name} changed")


def test_a_plain_call_is_the_forward_pass(answer):
    model = answer.MLP(DIN, DHIDDEN, DOUT, rngs=nnx.Rngs(2))
    w = weights(model)
    x, _ = data(2)
    out = model(x)
    want = jax.nn.relu(x @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]
    np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-5, atol=1e-6)
