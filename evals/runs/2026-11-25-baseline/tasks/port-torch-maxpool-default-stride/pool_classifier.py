"""Flax NNX port of a small PyTorch classifier (conv -> relu -> maxpool -> global mean -> linear).

The trap: `nn.MaxPool2d(2)` means kernel_size=2 AND stride=2 (torch's stride defaults to the kernel
size), whereas `nnx.max_pool(x, (2, 2))` defaults to strides=(1, 1), an overlapping pool that gives a
different feature map and different logits. The stride must be passed explicitly. torch's default
floor mode (no ceil_mode) drops a trailing odd row/column, which is padding="VALID".
The conv's padding=1 is explicit symmetric padding ((1, 1), (1, 1)) (for a 3x3 stride-1 conv this
equals "SAME", but explicit padding is what torch does). Data are NHWC, so the spatial mean is over
axes (1, 2) instead of torch's (2, 3).
"""

import jax
import jax.numpy as jnp
from flax import nnx

_PRECISION = jax.lax.Precision.HIGHEST  # full float32 matmuls/convs, like torch's defaults


class Classifier(nnx.Module):
    def __init__(self, in_channels: int, n_classes: int, *, rngs: nnx.Rngs):
        self.conv = nnx.Conv(
            in_channels,
            8,
            kernel_size=(3, 3),
            strides=(1, 1),
            padding=((1, 1), (1, 1)),
            use_bias=True,
            precision=_PRECISION,
            rngs=rngs,
        )
        self.fc = nnx.Linear(8, n_classes, precision=_PRECISION, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = jax.nn.relu(self.conv(x))  # (N, H, W, 8)
        h = nnx.max_pool(h, window_shape=(2, 2), strides=(2, 2), padding="VALID")
        return self.fc(jnp.mean(h, axis=(1, 2)))


if __name__ == "__main__":
    model = Classifier(3, 5, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(1), (2, 9, 11, 3))
    print(model(x).shape)  # (2, 5)
