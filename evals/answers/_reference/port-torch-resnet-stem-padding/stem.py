"""PyTorch's ResNet stem in NNX: torch's padding=p pads p pixels on both sides, so spell it out.

padding='SAME' with stride 2 on an even size pads 2 before and 3 after for the 7x7 conv (and 0/1 for
the 3x3 pool): same output shape as PyTorch, every output shifted by one input pixel.
"""

import jax
from flax import nnx


class Stem(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(3, 16, kernel_size=(7, 7), strides=(2, 2), padding=((3, 3), (3, 3)),
                              use_bias=False, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = nnx.relu(self.conv1(x))
        # max_pool pads with -inf (the reduction's identity), as PyTorch's MaxPool2d does
        return nnx.max_pool(h, window_shape=(3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))
