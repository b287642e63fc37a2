"""Shard a batch whose size the "data" axis does not divide (e.g. 100 rows on 8 devices), exactly.

`jax.device_put(batch, NamedSharding(mesh, P("data")))` requires the split dimension to be a multiple
of the axis size, so 100 rows on 8 devices raises ValueError ("... does not evenly divide the
dimension size 100"). Instead of dropping rows or replicating, pad with zero rows up to the next
multiple (104 = 8 x 13), shard that, and carry a mask (1.0 real, 0.0 padding). Every reduction over
the batch is then a masked sum divided by the number of real rows, `sum(mask)`, not by the padded
length, so the loss and its gradient are exactly those of the 100 real examples: the padded rows
contribute 0 to the value and 0 to the gradient.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """Zero-pad `batch` along axis 0 to a multiple of mesh.shape["data"] and split it over "data".

    Returns (padded, mask): mask is float32 (len(padded),), 1.0 for the real rows, 0.0 for padding,
    split over "data" the same way.
    """
    batch = np.asarray(batch)
    n_devices = mesh.shape["data"]
    n = batch.shape[0]
    extra = -n % n_devices  # rows to append: 0 when n already divides
    padded = np.pad(batch, [(0, extra)] + [(0, 0)] * (batch.ndim - 1))  # zero rows at the end
    mask = np.concatenate([np.ones(n, np.float32), np.zeros(extra, np.float32)])
    rows = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, rows), jax.device_put(mask, rows)


def _masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    per_row = jnp.mean((inputs @ w - targets) ** 2, axis=1)  # mean over the k columns
    return jnp.sum(per_row * mask) / jnp.sum(mask)  # mean over the real rows only


_loss_and_grad = jax.jit(jax.value_and_grad(_masked_loss))


def masked_loss_and_grad(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array
                         ) -> tuple[jax.Array, jax.Array]:
    """(loss, dloss/dw): loss = mean over the real rows and the k columns of (inputs @ w - targets)**2.

    inputs, targets and mask come from pad_and_shard (split over "data"); w (d, k) is replicated. The
    gradient of the replicated w over the split batch is all-reduced by XLA and comes back replicated.
    """
    return _loss_and_grad(w, inputs, targets, mask)


if __name__ == "__main__":
    # XLA_FLAGS=--xla_force_host_platform_device_count=8 python ragged_batch.py
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 5)).astype(np.float32)
    y = rng.normal(size=(100, 3)).astype(np.float32)
    w = rng.normal(size=(5, 3)).astype(np.float32)

    inputs, mask = pad_and_shard(x, mesh)
    targets, _ = pad_and_shard(y, mesh)
    w_rep = jax.device_put(w, NamedSharding(mesh, P()))
    loss, grad = masked_loss_and_grad(w_rep, inputs, targets, mask)

    ref_loss, ref_grad = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    print(inputs.shape, inputs.sharding.spec, float(mask.sum()), float(loss), float(ref_loss))
    assert inputs.shape[0] % mesh.shape["data"] == 0 and float(mask.sum()) == 100.0
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-5, atol=1e-6)
