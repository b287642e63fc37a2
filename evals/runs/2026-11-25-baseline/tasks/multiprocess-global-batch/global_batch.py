"""Assemble one global, sharded batch from per-process slices.

In a multi-process job ``jax.device_put(batch, NamedSharding(mesh, P("data")))`` would treat each
process's local array as the *whole* global batch. Instead each process hands its own rows to JAX
and states which part of the global array they are: ``jax.make_array_from_callback`` builds a single
global ``jax.Array`` of shape (m * process_count, ...) sharded over "data", where every process only
supplies the shards that live on its own (addressable) devices, read from its local slice. No data
crosses hosts.

This is what ``jax.make_array_from_process_local_data`` does for the usual mesh layout (the devices of
process i hold rows i*m ... (i+1)*m - 1); writing the index arithmetic out makes the row-to-process
contract explicit and checks it.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def _normalise(idx: slice, size: int) -> tuple[int, int]:
    start, stop, step = idx.indices(size)
    if step != 1:
        raise ValueError("Unexpected strided shard index.")
    return start, stop


def make_global_batch(local_rows: np.ndarray, mesh: jax.sharding.Mesh) -> jax.Array:
    """Global batch (m * process_count rows) sharded over "data", from process-local rows.

    Process i passes rows i*m .. (i+1)*m - 1 of the global batch as `local_rows` (m rows).
    """
    local_rows = np.asarray(local_rows)
    m = local_rows.shape[0]
    n_proc = jax.process_count()
    offset = jax.process_index() * m
    global_shape = (m * n_proc,) + local_rows.shape[1:]
    sharding = NamedSharding(mesh, P("data"))

    def shard_for(index):
        # `index` is the tuple of slices of the global array held by one of *this* process's devices.
        rows = index[0] if len(index) > 0 else slice(None)
        start, stop = _normalise(rows, global_shape[0])
        if start < offset or stop > offset + m:
            raise ValueError(
                f"Process {jax.process_index()} holds global rows [{offset}, {offset + m}) but one of "
                f"its devices needs rows [{start}, {stop}); build the mesh so that each process's "
                "devices are consecutive along 'data' (e.g. with jax.make_mesh)."
            )
        return local_rows[(slice(start - offset, stop - offset),) + tuple(index[1:])]

    return jax.make_array_from_callback(global_shape, sharding, shard_for)
