"""Grade `column_parallel.ColumnParallel`: partition annotations on the Params, arrays laid out by them."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


def mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((2, 4), ("data", "model"))


def test_annotations_are_read_by_get_partition_spec(answer):
    layer = answer.ColumnParallel(6, 8, mesh=mesh(), rngs=nnx.Rngs(0))
    specs = nnx.get_partition_spec(nnx.state(layer))
    assert specs["kernel"].get_value() == P(None, "model"), specs
    assert specs["bias"].get_value() == P("model"), specs


def test_arrays_are_laid_out_on_the_mesh(answer):
    m = mesh()
    layer = answer.ColumnParallel(6, 8, mesh=m, rngs=nnx.Rngs(0))
    kernel, bias = layer.kernel[...], layer.bias[...]
    assert kernel.shape == (6, 8) and bias.shape == (8,)
    assert kernel.sharding.is_equivalent_to(NamedSharding(m, P(None, "model")), 2), kernel.sharding
    assert bias.sharding.is_equivalent_to(NamedSharding(m, P("model")), 1), bias.sharding
    assert not np.any(np.asarray(bias))


def test_forward(answer):
    layer = answer.ColumnParallel(6, 8, mesh=mesh(), rngs=nnx.Rngs(1))
    x = jax.random.normal(jax.random.key(0), (4, 6))
    want = np.asarray(x) @ np.asarray(layer.kernel[...]) + np.asarray(layer.bias[...])
    np.testing.assert_allclose(np.asarray(layer(x)), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(nnx.jit(lambda m, v: m(v))(layer, x)), want, rtol=1e-5, atol=1e-6)
    assert float(jnp.std(layer.kernel[...])) > 0.1, "the kernel is not initialised"
