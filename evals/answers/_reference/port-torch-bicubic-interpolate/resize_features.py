"""F.interpolate(mode="bicubic", align_corners=False) in JAX.

PyTorch's bicubic uses the cubic kernel with A = -0.75 and replicates border pixels (JAX's "cubic" is
the Keys kernel with A = -0.5): method "cubic-pytorch". PyTorch does not antialias when downsampling
(antialias=False), jax.image.resize does by default, so antialias=False too.
"""

import jax


def resize_features(x: jax.Array, size: tuple[int, int]) -> jax.Array:
    n, c = x.shape[:2]
    return jax.image.resize(x, (n, c, *size), method="cubic-pytorch", antialias=False)
