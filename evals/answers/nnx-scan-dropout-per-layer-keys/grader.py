"""Grade `stack.DropoutStack`: scanned layers with their own weights and their own dropout masks."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

WIDTH, DEPTH, RATE = 512, 4, 0.5


def identity_stack(answer) -> nnx.Module:
    """A stack whose Linear layers are identities, so the output shows the product of the masks."""
    stack = answer.DropoutStack(WIDTH, DEPTH, RATE, rngs=nnx.Rngs(params=0, dropout=1))
    assert stack.blocks.linear.kernel.shape == (DEPTH, WIDTH, WIDTH)
    stack.blocks.linear.kernel[...] = jnp.broadcast_to(jnp.eye(WIDTH), (DEPTH, WIDTH, WIDTH))
    stack.blocks.linear.bias[...] = jnp.zeros((DEPTH, WIDTH))
    return stack


def test_layers_have_their_own_weights(answer):
    stack = answer.DropoutStack(8, DEPTH, RATE, rngs=nnx.Rngs(params=0, dropout=1))
    kernels = np.asarray(stack.blocks.linear.kernel[...])
    assert all(not np.array_equal(kernels[0], kernels[i]) for i in range(1, DEPTH))


def test_each_layer_draws_its_own_mask(answer):
    out = np.asarray(identity_stack(answer)(jnp.ones((1, WIDTH))))[0]
    kept = out != 0
    assert np.allclose(out[kept], (1 / (1 - RATE)) ** DEPTH, rtol=1e-5), "each kept unit is scaled once per layer"
    # Independent masks keep about WIDTH * 0.5**DEPTH = 32 units; one mask shared by every layer keeps ~256.
    assert kept.sum() < WIDTH / 4, f"{kept.sum()} of {WIDTH} units survive {DEPTH} layers: the layers share a mask"


def test_new_masks_on_every_call(answer):
    stack = identity_stack(answer)
    first, second = (np.asarray(stack(jnp.ones((1, WIDTH)))) != 0 for _ in range(2))
    assert not np.array_equal(first, second)
