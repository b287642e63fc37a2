"""X^T X on a row-sharded X under Explicit axes: say the output sharding (replicated) explicitly."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


@jax.jit
def gram(x: jax.Array) -> jax.Array:
    # The contracting dimension (rows) is sharded on both operands; with Explicit axes JAX will not
    # guess the result's sharding. Replicated: each device contracts its rows, then an all-reduce.
    replicated = NamedSharding(jax.typeof(x).sharding.mesh, P())
    return jnp.matmul(x.T, x, out_sharding=replicated)
