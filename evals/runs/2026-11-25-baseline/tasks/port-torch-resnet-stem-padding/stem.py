"""Flax NNX port of a PyTorch ResNet stem: Conv2d(3, 16, 7, stride 2, padding 3, no bias) -> ReLU ->
MaxPool2d(3, stride 2, padding 1).

Padding is where ports usually go wrong:
* torch's padding=3 pads 3 pixels on *every* side. padding="SAME" in Flax/XLA pads asymmetrically
  for a stride-2 conv on even-sized inputs (2 before, 3 after for a 7x7 kernel on 224 pixels), which
  shifts the sampling grid by one pixel: same output shape, different activations. Use explicit
  ((3, 3), (3, 3)).
* MaxPool2d(kernel_size=3, stride=2, padding=1) pads one pixel on every side with -inf (padded
  values never win the max) and uses floor mode. `nnx.max_pool` with explicit ((1, 1), (1, 1))
  padding pads with -inf through lax.reduce_window and computes the same floor-mode output size;
  again "SAME" would pad asymmetrically for even sizes.
Output size: H1 = floor((H + 6 - 7) / 2) + 1, H_out = floor((H1 + 2 - 3) / 2) + 1 (224 -> 112 -> 56).
"""

import jax
import jax.numpy as jnp
from flax import nnx


class Stem(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(
            3,
            16,
            kernel_size=(7, 7),
            strides=(2, 2),
            padding=((3, 3), (3, 3)),
            use_bias=False,
            precision=jax.lax.Precision.HIGHEST,  # full float32, like torch's default conv
            rngs=rngs,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        h = jax.nn.relu(self.conv1(x))  # (N, H1, W1, 16)
        return nnx.max_pool(h, window_shape=(3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))


if __name__ == "__main__":
    model = Stem(rngs=nnx.Rngs(0))
    print(model(jnp.zeros((1, 224, 224, 3))).shape)  # (1, 56, 56, 16)
    print(model(jnp.zeros((1, 37, 50, 3))).shape)  # (1, 10, 13, 16)
