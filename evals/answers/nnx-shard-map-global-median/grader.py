"""Grade `sharded_median.global_median_prediction`: the median over all shards, the same on every device."""

import jax
import numpy as np
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


class Scorer(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(3, 16, rngs=rngs)
        self.out = nnx.Linear(16, 1, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.out(nnx.relu(self.hidden(x)))


def sharded_batch(mesh, n: int, seed: int) -> jax.Array:
    x = jax.random.normal(jax.random.key(seed), (n, 3))
    return jax.device_put(x, NamedSharding(mesh, P("data")))


def test_median_over_the_whole_batch(answer):
    mesh = jax.make_mesh((8,), ("data",))
    model = Scorer(rngs=nnx.Rngs(0))
    for n, seed in ((64, 1), (40, 2)):
        x = sharded_batch(mesh, n, seed)
        want = np.median(np.asarray(model(x))[:, 0])
        got = answer.global_median_prediction(model, x, mesh)
        assert np.shape(got) == (), f"shape {np.shape(got)}: expected a scalar"
        # The median of one device's shard is far from the global one for these skewed predictions.
        np.testing.assert_allclose(float(got), want, rtol=1e-5, atol=1e-6)


def test_shards_are_not_medianed_separately(answer):
    mesh = jax.make_mesh((8,), ("data",))
    model = Scorer(rngs=nnx.Rngs(3))
    x = jax.numpy.sort(jax.random.normal(jax.random.key(4), (64, 3)), axis=0)  # shards differ systematically
    x = jax.device_put(x, NamedSharding(mesh, P("data")))
    predictions = np.asarray(model(x))[:, 0]
    got = float(answer.global_median_prediction(model, x, mesh))
    np.testing.assert_allclose(got, np.median(predictions), rtol=1e-5, atol=1e-6)
    assert not np.isclose(got, np.median(predictions[:8])), "the first shard's median was returned"
