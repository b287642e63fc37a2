"""Grade `dp_grad.data_parallel_grad`: the shard_map data-parallel gradient equals the one-device gradient."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P


def loss(params, inputs, targets):
    return jnp.mean((inputs @ params["w"] + params["b"] - targets) ** 2)


def problem(seed: int, n: int, d: int = 6, k: int = 3):
    rng = np.random.default_rng(seed)
    params = {"w": rng.normal(size=(d, k)).astype(np.float32), "b": rng.normal(size=(k,)).astype(np.float32)}
    return params, rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, k)).astype(np.float32)


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((8,), ("data",))


def placed(mesh, params, inputs, targets):
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    return jax.device_put(params, replicated), jax.device_put(inputs, split), jax.device_put(targets, split)


@pytest.mark.parametrize("seed,n", [(0, 64), (1, 16)])
def test_gradient_equals_the_single_device_gradient(answer, mesh, seed, n):
    params, inputs, targets = problem(seed, n)
    want = jax.grad(loss)(params, inputs, targets)
    got = answer.data_parallel_grad(*placed(mesh, params, inputs, targets), mesh)
    for name in ("w", "b"):
        ratio = float(np.median(np.asarray(got[name]) / np.asarray(want[name])))
        assert np.allclose(np.asarray(got[name]), np.asarray(want[name]), rtol=1e-5, atol=1e-6), (
            f"grad[{name!r}] is {ratio:.3g} times the one-device gradient")


def test_result_is_replicated_and_built_with_shard_map(answer, mesh):
    params, inputs, targets = problem(2, 32)
    args = placed(mesh, params, inputs, targets)
    got = answer.data_parallel_grad(*args, mesh)
    assert all(leaf.sharding.is_fully_replicated for leaf in jax.tree.leaves(got))
    traced = str(jax.make_jaxpr(answer.data_parallel_grad, static_argnums=3)(*args, mesh))
    assert "shard_map[" in traced, "the gradient is not computed under jax.shard_map"
