"""Shard a batch the data axis does not divide: pad to a multiple of the axis size, mask the padding."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: Mesh) -> tuple[jax.Array, jax.Array]:
    """Zero rows appended up to a multiple of the "data" axis size; both results split over "data"."""
    extra = -len(batch) % mesh.shape["data"]
    padded = np.pad(batch, [(0, extra)] + [(0, 0)] * (batch.ndim - 1))
    mask = np.concatenate([np.ones(len(batch), np.float32), np.zeros(extra, np.float32)])
    rows = NamedSharding(mesh, P("data"))
    return jax.device_put(padded, rows), jax.device_put(mask, rows)


def masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    per_row = jnp.mean((inputs @ w - targets) ** 2, axis=1)
    return jnp.sum(per_row * mask) / jnp.sum(mask)


masked_loss_and_grad = jax.jit(jax.value_and_grad(masked_loss))
