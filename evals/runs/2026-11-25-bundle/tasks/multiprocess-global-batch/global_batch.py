"""Assemble one global, data-sharded batch from the per-process slices of a multi-process job.

`jax.device_put(batch, NamedSharding(mesh, P("data")))` only works when the calling process holds the
*whole* batch: a process can put data only on its own devices, and `device_put` would treat the
local slice as if it were the global array. With one process per host, every process instead calls
`jax.make_array_from_process_local_data` with its own rows. JAX places them on this process's devices
and the result is one global `jax.Array` of shape (m * process_count, ...), split over "data"; the
jitted train step takes it like any other sharded array.

Every process must call this (same program, same mesh), in the same order relative to the train
step. Run `jax.distributed.initialize()` before any other JAX call.

Layout assumption, checked below: process i's devices hold rows i*m .. (i+1)*m - 1 of the global
batch. That is the case for `jax.make_mesh((jax.device_count(),), ("data",))`, whose device order
groups each process's devices together in process order. For another mesh, ask JAX which rows this
process must load: `sharding.addressable_devices_indices_map(global_shape)`.

To read results: a replicated value (the loss) with `x.addressable_data(0)`, a sharded one with
`jax.experimental.multihost_utils.process_allgather(x)`.
"""

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def make_global_batch(local_rows: np.ndarray, mesh: jax.sharding.Mesh) -> jax.Array:
    """Global batch split over the "data" axis of `mesh`, built from this process's rows.

    Args:
        local_rows: this process's consecutive slice of the global batch, shape (m, ...): rows
            i*m .. (i+1)*m - 1 for process i. With a single process, the whole batch.
        mesh: the same mesh in every process, one axis "data" over all processes' devices.

    Returns:
        A jax.Array of shape (m * jax.process_count(), ...) with sharding NamedSharding(mesh, P("data")).
    """
    local_rows = np.asarray(local_rows)
    sharding = NamedSharding(mesh, P("data"))
    m = local_rows.shape[0]
    num_processes = jax.process_count()
    global_shape = (m * num_processes, *local_rows.shape[1:])

    if global_shape[0] % mesh.shape["data"] != 0:
        raise ValueError(
            f"global batch of {global_shape[0]} rows does not split evenly over {mesh.shape['data']} devices"
        )

    # The rows this process's devices will hold must be exactly the rows it loaded.
    start, stop = _rows_held_by_this_process(sharding, global_shape)
    expected = (jax.process_index() * m, (jax.process_index() + 1) * m)
    if (start, stop) != expected:
        raise ValueError(
            f"process {jax.process_index()} loaded rows {expected[0]}..{expected[1] - 1}, but its devices "
            f"in this mesh hold rows {start}..{stop - 1}; load the rows given by "
            "sharding.addressable_devices_indices_map(global_shape), or order the mesh's devices by process"
        )

    return jax.make_array_from_process_local_data(sharding, local_rows, global_shape=global_shape)


def _rows_held_by_this_process(sharding: NamedSharding, global_shape: tuple[int, ...]) -> tuple[int, int]:
    """(first row, one past the last row) of the global batch held by this process's devices."""
    n_rows = global_shape[0]
    starts, stops = [], []
    for index in sharding.addressable_devices_indices_map(global_shape).values():
        rows = index[0]
        starts.append(0 if rows.start is None else rows.start)
        stops.append(n_rows if rows.stop is None else rows.stop)
    start, stop = min(starts), max(stops)
    held = sum(b - a for a, b in {(a, b) for a, b in zip(starts, stops)})
    if held != stop - start:  # the process's devices must hold one contiguous block of rows
        raise ValueError(f"this process's devices hold non-contiguous rows of the batch ({starts}, {stops})")
    return start, stop
