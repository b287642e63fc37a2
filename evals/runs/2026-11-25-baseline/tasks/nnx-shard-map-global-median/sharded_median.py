"""Global median of a model's scores from per-device (shard_map) evaluation code.

A median is not decomposable: the median of per-shard medians is not the median of the batch, and
unlike a mean it cannot be assembled with a ``psum``. Each device therefore computes the scores of its
own rows, ``all_gather``s the (small, one number per example) score vector over "data", and takes the
median of the full vector. Every device computes the same value from the same gathered vector, so the
result is replicated (``out_specs=P()``). The model is replicated (``P()``), x is split over "data".
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import Mesh, PartitionSpec as P

AXIS = "data"


def _median_fn(mesh: Mesh):
    @functools.partial(
        nnx.shard_map,
        mesh=mesh,
        in_specs=(P(), P(AXIS)),  # model replicated, batch split over "data"
        out_specs=P(),            # replicated scalar
    )
    def per_device(model: nnx.Module, x_local: jax.Array) -> jax.Array:
        local_scores = model(x_local)[:, 0]                               # (n / 8,)
        all_scores = jax.lax.all_gather(local_scores, AXIS, tiled=True)   # (n,), same on all devices
        return jnp.median(all_scores)

    return per_device


def global_median_prediction(model: nnx.Module, x: jax.Array, mesh: Mesh) -> jax.Array:
    """Median of model(x)[:, 0] over all n rows, computed inside nnx.shard_map; replicated scalar."""
    return nnx.jit(_median_fn(mesh))(model, x)
