"""Shard a batch whose size is not divisible by the number of devices, and compute the exact mean
loss over its real examples.

A NamedSharding with P("data") splits the leading axis into equal blocks, one per device, so 100
rows cannot be split over 8 devices. Pad the batch with zero rows up to the next multiple (104),
shard the padded batch, and carry a mask (1.0 real, 0.0 padding), sharded the same way. The loss
sums the squared errors of the real rows only and divides by the number of real elements
(real rows * k columns), so both the loss and its gradient are exactly those of the unpadded batch;
padding rows contribute nothing, whatever their content.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    batch = np.asarray(batch)
    n = batch.shape[0]
    num_shards = mesh.shape["data"]
    padded_n = -(-n // num_shards) * num_shards  # smallest multiple of num_shards >= n
    pad = padded_n - n

    padded = np.concatenate([batch, np.zeros((pad,) + batch.shape[1:], batch.dtype)], axis=0)
    mask = np.concatenate([np.ones((n,), np.float32), np.zeros((pad,), np.float32)])

    sharding = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, sharding), jax.device_put(mask, sharding)


def _masked_loss(w, inputs, targets, mask):
    sq_err = (inputs @ w - targets) ** 2  # (n_padded, k)
    per_row = jnp.sum(sq_err, axis=1)
    real = mask > 0
    total = jnp.sum(jnp.where(real, per_row, 0.0))
    num_real = jnp.sum(real.astype(per_row.dtype))
    return total / (num_real * sq_err.shape[1])


_masked_loss_and_grad = jax.jit(jax.value_and_grad(_masked_loss))


def masked_loss_and_grad(w, inputs, targets, mask) -> tuple[jax.Array, jax.Array]:
    """(mean over the real rows and k columns of (inputs @ w - targets) ** 2, its gradient wrt w)."""
    return _masked_loss_and_grad(w, inputs, targets, mask)


if __name__ == "__main__":
    n_dev = jax.device_count()
    mesh = jax.make_mesh((n_dev,), ("data",))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 5)).astype(np.float32)
    y = rng.normal(size=(100, 3)).astype(np.float32)
    w = rng.normal(size=(5, 3)).astype(np.float32)

    xs, mask = pad_and_shard(x, mesh)
    ys, _ = pad_and_shard(y, mesh)
    w_rep = jax.device_put(w, NamedSharding(mesh, P()))
    loss, grad = masked_loss_and_grad(w_rep, xs, ys, mask)

    ref_loss, ref_grad = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    print(xs.shape, xs.sharding, float(loss), float(ref_loss))
    print(np.allclose(grad, ref_grad, rtol=1e-5, atol=1e-6))
