"""Data-parallel SGD for a linear model with jax.shard_map over a one-axis mesh of all devices."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

LEARNING_RATE = 0.1
MESH = jax.make_mesh((jax.device_count(),), ("batch",))


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def global_loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    """The whole-batch mean: each device's block mean, averaged over the devices (equal blocks)."""
    return jax.lax.pmean(loss_fn(params, x, y), "batch")


@jax.jit
@jax.shard_map(mesh=MESH, in_specs=(P(), P("batch"), P("batch")), out_specs=(P(), P()))
def sharded_step(params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, jax.Array]:
    # params are replicated (P()): autodiff sums their gradient over "batch" itself, no pmean needed.
    loss, grads = jax.value_and_grad(global_loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


def train_step(params: dict, x: np.ndarray, y: np.ndarray) -> tuple[dict, jax.Array]:
    """One data-parallel step on the global batch (x, y); returns (new_params, mean loss)."""
    params = jax.device_put(params, NamedSharding(MESH, P()))
    x, y = jax.device_put((x, y), NamedSharding(MESH, P("batch")))
    return sharded_step(params, x, y)
