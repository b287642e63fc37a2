"""Grade `gram.gram`: X^T X of a row-sharded X on a default (Explicit) mesh, replicated result."""

import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P


def placed(n: int, d: int) -> tuple[jax.Array, np.ndarray]:
    mesh = jax.make_mesh((8,), ("data",))
    host = np.random.default_rng(n * d).normal(size=(n, d)).astype(np.float32)
    return jax.device_put(host, NamedSharding(mesh, P("data"))), host


def test_gram_values_and_replicated_result(answer):
    for n, d in ((64, 5), (40, 3)):
        x, host = placed(n, d)
        result = answer.gram(x)
        assert result.shape == (d, d)
        np.testing.assert_allclose(np.asarray(result), host.T @ host, rtol=1e-4, atol=1e-4)
        assert result.sharding.is_fully_replicated, f"result sharding {result.sharding} is not replicated"
        assert len(result.sharding.device_set) == 8
