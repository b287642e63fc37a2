"""Grade `rescale.rescale_linear_layers`: every nnx.Linear visited once, kernels scaled, biases zeroed."""

import jax.numpy as jnp
import numpy as np
from flax import nnx


class Block(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.proj = nnx.Linear(4, 4, rngs=rngs)
        self.norm = nnx.LayerNorm(4, rngs=rngs)


class Net(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.embed = nnx.Linear(3, 4, rngs=rngs)
        self.blocks = nnx.List([Block(rngs=rngs), Block(rngs=rngs)])
        self.head = nnx.Linear(4, 2, use_bias=False, rngs=rngs)


class Tied(nnx.Module):
    """An autoencoder whose decoder is the encoder object itself."""

    def __init__(self, *, rngs: nnx.Rngs):
        self.encoder = nnx.Linear(4, 4, rngs=rngs)
        self.decoder = self.encoder
        self.other = nnx.Linear(4, 4, rngs=rngs)


def linears(model: Net) -> list[nnx.Linear]:
    return [model.embed, model.blocks[0].proj, model.blocks[1].proj, model.head]


def test_every_linear_scaled_and_bias_zeroed(answer):
    model = Net(rngs=nnx.Rngs(0))
    kernels = [np.asarray(layer.kernel[...]) for layer in linears(model)]
    model.blocks[0].proj.bias[...] = jnp.full((4,), 3.0)
    norm_scale = np.asarray(model.blocks[1].norm.scale[...]).copy()

    paths = answer.rescale_linear_layers(model, 0.5)

    for layer, before in zip(linears(model), kernels):
        np.testing.assert_allclose(np.asarray(layer.kernel[...]), 0.5 * before, rtol=1e-6)
        if layer.bias is not None:
            assert not np.any(np.asarray(layer.bias[...])), "a bias was not set to zero"
    np.testing.assert_array_equal(np.asarray(model.blocks[1].norm.scale[...]), norm_scale)
    assert sorted(map(tuple, paths), key=str) == sorted(
        [("embed",), ("blocks", 0, "proj"), ("blocks", 1, "proj"), ("head",)], key=str
    ), paths


def test_a_shared_layer_is_scaled_once(answer):
    model = Tied(rngs=nnx.Rngs(1))
    before = np.asarray(model.encoder.kernel[...]).copy()
    paths = answer.rescale_linear_layers(model, 0.5)
    np.testing.assert_allclose(np.asarray(model.encoder.kernel[...]), 0.5 * before, rtol=1e-6,
                               err_msg="the tied layer was scaled more than once")
    assert len(paths) == 2, paths
