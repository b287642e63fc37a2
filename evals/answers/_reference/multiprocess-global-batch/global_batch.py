"""A global batch from each process's rows: jax.make_array_from_process_local_data infers the global shape."""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def make_global_batch(local_rows: np.ndarray, mesh: Mesh) -> jax.Array:
    """This process's consecutive rows, assembled with the other processes' into one array split over "data"."""
    return jax.make_array_from_process_local_data(NamedSharding(mesh, P("data")), local_rows)
