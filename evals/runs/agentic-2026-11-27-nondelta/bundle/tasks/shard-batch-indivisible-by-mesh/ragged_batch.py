"""Shard a batch whose size the "data" axis does not divide: pad it, and mask the padding out.

A split dimension must be a multiple of the number of devices along its mesh axis, so
``jax.device_put(batch_of_100, NamedSharding(mesh, P("data")))`` on 8 devices raises
"... does not evenly divide the dimension size 100". Pad the rows to the next multiple (104), shard
the padded batch, and carry a mask (1.0 = real row, 0.0 = padding). The loss is then a masked mean
divided by the number of *real* rows (``sum(mask)``), so its value and its gradient are those of the
100 real examples: nothing dropped, nothing replicated.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """(padded, mask): ``batch`` zero-padded to a multiple of mesh.shape["data"] rows, both split over "data"."""
    batch = np.asarray(batch)
    n = batch.shape[0]
    extra = -n % mesh.shape["data"]
    padded = np.pad(batch, [(0, extra)] + [(0, 0)] * (batch.ndim - 1))  # zero rows appended
    mask = np.concatenate([np.ones(n, np.float32), np.zeros(extra, np.float32)])
    split = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, split), jax.device_put(mask, split)


def _masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    per_row = jnp.mean((inputs @ w - targets) ** 2, axis=1)  # mean over the k columns
    per_row = jnp.where(mask > 0, per_row, 0.0)  # padding contributes exactly 0 (and 0 gradient)
    return jnp.sum(per_row) / jnp.sum(mask)  # divide by the number of REAL rows, not len(padded)


_loss_and_grad = jax.jit(jax.value_and_grad(_masked_loss))


def masked_loss_and_grad(
    w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(loss, dloss/dw), loss = mean over the real rows and the k columns of (inputs @ w - targets) ** 2."""
    return _loss_and_grad(w, inputs, targets, mask)


if __name__ == "__main__":
    jax.config.update("jax_num_cpu_devices", 8)  # 8 CPU devices for the demo

    mesh = jax.make_mesh((8,), ("data",))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 5)).astype(np.float32)
    y = rng.normal(size=(100, 3)).astype(np.float32)
    w = rng.normal(size=(5, 3)).astype(np.float32)

    try:
        jax.device_put(x, NamedSharding(mesh, P("data")))
    except ValueError as e:
        print("unpadded device_put:", "does not evenly divide" in str(e))

    inputs, mask = pad_and_shard(x, mesh)
    targets, mask_t = pad_and_shard(y, mesh)
    assert inputs.shape == (104, 5) and targets.shape == (104, 3) and mask.shape == (104,)
    assert mask.dtype == jnp.float32 and float(mask.sum()) == 100 and np.array_equal(mask, mask_t)
    assert inputs.sharding == mask.sharding == NamedSharding(mesh, P("data"))
    assert len({s.data.shape for s in inputs.addressable_shards}) == 1  # 13 rows on each of 8 devices
    print(jax.typeof(inputs), jax.typeof(mask))

    w_rep = jax.device_put(w, NamedSharding(mesh, P()))
    loss, grad = masked_loss_and_grad(w_rep, inputs, targets, mask)

    # Reference: the unpadded batch on one device, in float64.
    x64, y64, w64 = (a.astype(np.float64) for a in (x, y, w))
    ref_loss = np.mean((x64 @ w64 - y64) ** 2)
    ref_grad = 2 * x64.T @ (x64 @ w64 - y64) / y64.size
    print(f"loss {float(loss):.7f} vs unpadded {ref_loss:.7f}; "
          f"max |grad diff| {np.max(np.abs(np.asarray(grad) - ref_grad)):.1e}")
    np.testing.assert_allclose(float(loss), ref_loss, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), ref_grad, rtol=1e-5, atol=1e-6)
    # Dividing by the padded length would be wrong by 100/104:
    assert abs(float(loss) * 100 / 104 - ref_loss) > 1e-3
