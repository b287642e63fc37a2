"""Grade `running_center.RunningCenter`: batch centering with an EMA of the batch means kept in a BatchStat."""

import jax
import numpy as np
from flax import nnx

MOMENTUM = 0.8


def batches():
    keys = jax.random.split(jax.random.key(0), 3)
    return [2.0 + jax.random.normal(k, (16, 4)) * (i + 1) for i, k in enumerate(keys)]


def run(layer, call):
    ema = np.zeros(4, np.float32)
    for x in batches():
        out = call(layer, x)
        mean = np.asarray(x).mean(axis=0)
        ema = MOMENTUM * ema + (1 - MOMENTUM) * mean
        np.testing.assert_allclose(np.asarray(out), np.asarray(x) - mean, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(layer.running_mean[...]), ema, rtol=1e-5, atol=1e-6)
    return ema


def test_training_updates_the_running_mean(answer):
    layer = answer.RunningCenter(4, MOMENTUM, rngs=nnx.Rngs(0))
    assert isinstance(layer.scale, nnx.Param) and not isinstance(layer.running_mean, nnx.Param)
    assert isinstance(layer.running_mean, nnx.BatchStat)
    run(layer, lambda m, x: m(x))


def test_the_update_survives_nnx_jit(answer):
    layer = answer.RunningCenter(4, MOMENTUM, rngs=nnx.Rngs(0))
    run(layer, nnx.jit(lambda m, x: m(x)))


def test_evaluation_uses_the_stored_average(answer):
    layer = answer.RunningCenter(4, MOMENTUM, rngs=nnx.Rngs(0))
    ema = run(layer, lambda m, x: m(x))
    layer.scale[...] = layer.scale[...] * 2.0
    layer.use_running_average = True
    x = batches()[0]
    np.testing.assert_allclose(np.asarray(layer(x)), (np.asarray(x) - ema) * 2.0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(layer.running_mean[...]), ema, rtol=1e-6)
