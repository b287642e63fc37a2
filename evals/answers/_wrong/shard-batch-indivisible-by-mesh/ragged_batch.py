"""Split the batch when the rows divide; otherwise fall back to replicating it on every device."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def pad_and_shard(batch: np.ndarray, mesh: Mesh) -> tuple[jax.Array, jax.Array]:
    spec = P("data") if len(batch) % mesh.shape["data"] == 0 else P()
    sharding = NamedSharding(mesh, spec)
    return jax.device_put(batch, sharding), jax.device_put(np.ones(len(batch), np.float32), sharding)


def masked_loss(w: jax.Array, inputs: jax.Array, targets: jax.Array, mask: jax.Array) -> jax.Array:
    per_row = jnp.mean((inputs @ w - targets) ** 2, axis=1)
    return jnp.sum(per_row * mask) / jnp.sum(mask)


masked_loss_and_grad = jax.jit(jax.value_and_grad(masked_loss))
