"""Data-parallel training on a batch whose size the mesh does not divide.

A ``NamedSharding(mesh, P("data"))`` needs the leading dimension to be a
multiple of the number of devices on "data".  Instead of dropping examples or
replicating, pad the batch with zero rows up to the next multiple and carry
a mask (1 for real rows, 0 for padding).  The loss is then a *masked* mean:
sum of the masked squared errors divided by (number of real rows * k), so
padding rows contribute nothing to the loss or the gradient, and the result is
the mean over the real examples only (not over the padded batch).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: Mesh) -> tuple[jax.Array, jax.Array]:
    """Pad `batch` with zero rows to a multiple of mesh.shape["data"], shard over "data".

    Returns (padded, mask); mask is float32 of shape (len(padded),), 1.0 on
    real rows and 0.0 on padding, sharded the same way.
    """
    batch = np.asarray(batch)
    n_dev = mesh.shape["data"]
    n = batch.shape[0]
    n_padded = -(-n // n_dev) * n_dev  # smallest multiple of n_dev >= n
    pad = n_padded - n
    padded = np.concatenate([batch, np.zeros((pad, *batch.shape[1:]), batch.dtype)], axis=0)
    mask = np.concatenate([np.ones(n, np.float32), np.zeros(pad, np.float32)])
    sharding = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, sharding), jax.device_put(mask, sharding)


def _masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    sq_err = (inputs @ w - targets) ** 2  # (n_padded, k), sharded over rows
    per_row = jnp.sum(sq_err, axis=1) * mask  # padding rows -> 0
    n_real = jnp.sum(mask)
    return jnp.sum(per_row) / (n_real * sq_err.shape[1])


@jax.jit
def masked_loss_and_grad(
    w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(loss, dloss/dw) with loss = mean over real rows and k columns of (inputs @ w - targets)**2."""
    return jax.value_and_grad(_masked_loss)(w, inputs, targets, mask)
