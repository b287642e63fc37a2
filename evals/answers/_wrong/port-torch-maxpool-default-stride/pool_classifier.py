"""The natural port: nn.MaxPool2d(2) -> nnx.max_pool(h, (2, 2)), whose strides default to 1."""

import jax
from flax import nnx


class Classifier(nnx.Module):
    def __init__(self, in_channels: int, n_classes: int, *, rngs: nnx.Rngs):
        self.conv = nnx.Conv(in_channels, 8, kernel_size=(3, 3), padding=((1, 1), (1, 1)), rngs=rngs)
        self.fc = nnx.Linear(8, n_classes, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = nnx.relu(self.conv(x))
        h = nnx.max_pool(h, window_shape=(2, 2))
        return self.fc(h.mean(axis=(1, 2)))
