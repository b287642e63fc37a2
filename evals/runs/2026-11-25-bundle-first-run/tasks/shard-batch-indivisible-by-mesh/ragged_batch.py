"""Shard a batch that the "data" axis does not divide: pad, shard, and mask the padding out of the loss.

`jax.device_put(batch, NamedSharding(mesh, P("data")))` needs the leading dimension to be a multiple of
the number of devices on "data" (100 rows over 8 devices: ValueError "... does not evenly divide the
dimension size 100"). Padding to the next multiple (104 = 13 rows per device) keeps every device busy
and every example in the batch; a mask with 1 for real rows and 0 for padding makes the loss a
weighted mean over the real rows only, so its value and its gradient are exactly those of the
unpadded 100-row batch (the padded rows get weight 0, so they contribute nothing to either).

The mean divides by the number of real rows (sum of the mask), not by the padded length.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """Append zero rows up to the next multiple of mesh.shape["data"], split rows over "data".

    Returns (padded, mask): padded has len(batch) rounded up to that multiple; mask is float32 of shape
    (len(padded),), 1.0 for real rows and 0.0 for padding, split over "data" the same way.
    """
    batch = np.asarray(batch)
    n_shards = mesh.shape["data"]
    extra = -len(batch) % n_shards  # 100 rows, 8 devices -> 4 padding rows
    padded = np.pad(batch, [(0, extra)] + [(0, 0)] * (batch.ndim - 1))  # zeros
    mask = np.concatenate([np.ones(len(batch), np.float32), np.zeros(extra, np.float32)])
    rows = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, rows), jax.device_put(mask, rows)


def _masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    """Mean over the real rows and the k columns of (inputs @ w - targets) ** 2."""
    per_row = jnp.mean((inputs @ w - targets) ** 2, axis=1)  # (padded_n,), split over "data"
    return jnp.sum(per_row * mask) / jnp.sum(mask)


@jax.jit
def masked_loss_and_grad(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array
                         ) -> tuple[jax.Array, jax.Array]:
    """(loss, dloss/dw) with inputs, targets, mask from pad_and_shard and w (d, k) replicated.

    Data parallel by construction: each device computes its rows, and the sums over the split row axis
    (loss and the gradient of the replicated w) become all-reduces in the compiled program.
    """
    return jax.value_and_grad(_masked_loss)(w, inputs, targets, mask)


if __name__ == "__main__":
    # Run with e.g. XLA_FLAGS=--xla_force_host_platform_device_count=8 to get 8 CPU devices.
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    rng = np.random.default_rng(0)
    n, d, k = 100, 5, 3
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = rng.normal(size=(n, k)).astype(np.float32)
    w = jax.device_put(rng.normal(size=(d, k)).astype(np.float32), NamedSharding(mesh, P()))

    inputs, mask = pad_and_shard(x, mesh)
    targets, mask_y = pad_and_shard(y, mesh)
    assert inputs.shape[0] % mesh.shape["data"] == 0 and inputs.shape[0] - n < mesh.shape["data"]
    assert float(mask.sum()) == n and np.array_equal(np.asarray(mask), np.asarray(mask_y))
    print(inputs.sharding.spec, jax.typeof(inputs))

    loss, grad = masked_loss_and_grad(w, inputs, targets, mask)
    unpadded = lambda w_: jnp.mean((jnp.asarray(x) @ w_ - jnp.asarray(y)) ** 2)
    ref_loss, ref_grad = jax.value_and_grad(unpadded)(np.asarray(w))
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-5, atol=1e-6)
    print(f"loss {float(loss):.6f} == unpadded {float(ref_loss):.6f}; gradient matches")
