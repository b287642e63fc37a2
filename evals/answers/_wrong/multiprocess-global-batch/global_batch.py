"""The single-process habit: device_put the rows this process loaded with the batch sharding."""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def make_global_batch(local_rows: np.ndarray, mesh: Mesh) -> jax.Array:
    return jax.device_put(local_rows, NamedSharding(mesh, P("data")))
