"""Grade `activations`: logits plus every hidden ReLU output, with no extra state left on the model."""

import jax
import numpy as np
from flax import nnx


def pure_forward(model, x):
    """The same network on the model's arrays, in plain JAX."""
    features = []
    for layer in (model.hidden1, model.hidden2):
        x = jax.nn.relu(x @ layer.kernel[...] + layer.bias[...])
        features.append(x)
    return x @ model.out.kernel[...] + model.out.bias[...], features


def only_params_left(model) -> bool:
    return all(isinstance(variable, nnx.Param) for _, variable in nnx.to_flat_state(nnx.state(model)))


def data(din: int = 3):
    return jax.random.normal(jax.random.key(0), (6, din))


def check(logits, features, want_logits, want_features):
    np.testing.assert_allclose(np.asarray(logits), np.asarray(want_logits), rtol=1e-5, atol=1e-6)
    assert len(features) == 2, f"{len(features)} feature arrays for 2 hidden layers"
    for got, want in zip(features, want_features):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_logits_and_features(answer):
    model = answer.MLP(3, 5, 2, rngs=nnx.Rngs(0))
    x = data()
    want_logits, want_features = pure_forward(model, x)
    logits, features = answer.forward_with_features(model, x)
    check(logits, features, want_logits, want_features)
    assert only_params_left(model), "activations were left on the model"


def test_under_nnx_jit(answer):
    model = answer.MLP(4, 3, 2, rngs=nnx.Rngs(1))
    x = data(4)
    want_logits, want_features = pure_forward(model, x)
    logits, features = nnx.jit(answer.forward_with_features)(model, x)
    check(logits, features, want_logits, want_features)
    assert only_params_left(model), "activations were left on the model"


def test_plain_call_returns_logits(answer):
    model = answer.MLP(3, 5, 2, rngs=nnx.Rngs(2))
    x = data()
    want_logits, _ = pure_forward(model, x)
    np.testing.assert_allclose(np.asarray(model(x)), np.asarray(want_logits), rtol=1e-5, atol=1e-6)
