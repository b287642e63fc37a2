"""Assemble one global, data-parallel batch from each process's slice of rows.

In a multi-process job (``jax.distributed.initialize``, one process per host) a process can only put
data on its *own* devices. ``jax.device_put(batch, NamedSharding(mesh, P("data")))`` treats ``batch``
as the whole global array, so with per-process slices it is the wrong shape (and the other processes'
devices are not addressable from here). The tool for this is
``jax.make_array_from_process_local_data``: every process passes its own rows, and JAX stitches them
into one ``jax.Array`` of the global shape whose shards live on all processes' devices. The jitted
train step then receives that array like any other sharded input.

Usage, in every process, with the same mesh::

    jax.distributed.initialize()             # before any other JAX call
    mesh = jax.make_mesh((jax.device_count(),), ("data",))
    batch = make_global_batch(local_rows, mesh)   # global shape (m * jax.process_count(), ...)
    state, loss = train_step(state, batch)
    loss_value = loss.addressable_data(0)    # a replicated result, read locally

Requirements this relies on (the function checks them and raises a clear error otherwise):

* every process passes the same number of rows ``m``;
* ``m`` is divisible by the number of this process's devices in the mesh;
* the mesh is ordered process-major, so that process i's devices hold exactly the global rows
  ``i*m .. (i+1)*m - 1``. ``jax.make_mesh`` orders devices that way.
"""

from __future__ import annotations

import jax
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def make_global_batch(local_rows: np.ndarray, mesh: jax.sharding.Mesh) -> jax.Array:
    """Build the global batch, split over ``"data"`` on its leading axis, from this process's rows.

    Args:
        local_rows: this process's consecutive slice of the global batch, shape ``(m, ...)``: process
            ``i`` holds rows ``i*m .. (i+1)*m - 1``. With a single process it is the whole batch.
        mesh: the same mesh in every process, one axis ``"data"`` over all processes' devices.

    Returns:
        A ``jax.Array`` of shape ``(m * jax.process_count(), ...)`` with sharding
        ``NamedSharding(mesh, P("data"))``. In a multi-process job it is not fully addressable: each
        process holds the shards on its own devices, which are exactly the rows it passed in.
    """
    local_rows = np.asarray(local_rows)
    if local_rows.ndim == 0:
        raise ValueError("local_rows needs a leading batch axis")

    sharding = NamedSharding(mesh, P("data"))
    m = local_rows.shape[0]
    num_processes = jax.process_count()
    global_shape = (m * num_processes, *local_rows.shape[1:])

    # Which global rows do this process's devices hold? They must be exactly our slice
    # [i*m, (i+1)*m), otherwise the rows we loaded would land on the wrong devices.
    index_map = sharding.addressable_devices_indices_map(global_shape)
    if not index_map:
        raise ValueError("this process has no devices in `mesh`; the mesh must span every process")
    # Row ranges held by this process's devices (deduplicated, in case of replication).
    held = sorted(
        {
            (rows.start or 0, global_shape[0] if rows.stop is None else rows.stop)
            for rows, *_ in index_map.values()
        }
    )
    first, last = jax.process_index() * m, (jax.process_index() + 1) * m
    contiguous = all(prev_stop == start for (_, prev_stop), (start, _) in zip(held, held[1:]))
    if held[0][0] != first or held[-1][1] != last or not contiguous:
        raise ValueError(
            f"process {jax.process_index()} loaded global rows [{first}, {last}), but its devices in the mesh "
            f"hold rows {held} of a ({global_shape[0]}, ...) batch. Pass the same number "
            "of rows from every process, a multiple of the local device count, and build the mesh with "
            "process-major device order (jax.make_mesh does)."
        )

    # Each process contributes its own rows; JAX places each device's piece on that device and
    # records the global shape. No cross-process data transfer happens here.
    return jax.make_array_from_process_local_data(sharding, local_rows, global_shape)
