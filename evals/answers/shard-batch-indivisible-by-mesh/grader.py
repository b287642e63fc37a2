"""Grade `ragged_batch`: a batch whose length the data axis does not divide is padded, split and masked."""

import jax
import numpy as np
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((8,), ("data",))


def batch(n: int, d: int = 3, k: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, d)).astype(np.float32), rng.normal(size=(n, k)).astype(np.float32),
            rng.normal(size=(d, k)).astype(np.float32))


def assert_split_over_data(array: jax.Array, what: str) -> None:
    spec = array.sharding.spec
    assert len(spec) >= 1 and spec[0] == "data", f"{what} is not split over 'data': its spec is {spec}"
    assert array.addressable_shards[0].data.shape[0] == array.shape[0] // 8, f"{what}: shards are not 1/8 of the rows"


def test_an_indivisible_batch_is_padded_and_split(answer, mesh):
    inputs, _, _ = batch(100)
    padded, mask = answer.pad_and_shard(inputs, mesh)
    assert_split_over_data(padded, "padded")
    assert_split_over_data(mask, "mask")
    assert padded.shape == (104, 3) and mask.shape == (104,)
    np.testing.assert_array_equal(np.asarray(padded)[:100], inputs)
    np.testing.assert_array_equal(np.asarray(padded)[100:], 0.0)
    np.testing.assert_array_equal(np.asarray(mask), np.r_[np.ones(100), np.zeros(4)].astype(np.float32))


def test_loss_and_gradient_are_those_of_the_real_rows(answer, mesh):
    inputs, targets, w = batch(100, seed=1)
    padded_inputs, mask = answer.pad_and_shard(inputs, mesh)
    padded_targets, _ = answer.pad_and_shard(targets, mesh)
    w_placed = jax.device_put(w, NamedSharding(mesh, P()))
    loss, grad = answer.masked_loss_and_grad(w_placed, padded_inputs, padded_targets, mask)
    residual = inputs.astype(np.float64) @ w - targets
    np.testing.assert_allclose(float(loss), np.mean(residual**2), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grad), 2 * inputs.T @ residual / residual.size, rtol=1e-4, atol=1e-6)


def test_a_divisible_batch_is_not_padded(answer, mesh):
    inputs, _, _ = batch(64)
    padded, mask = answer.pad_and_shard(inputs, mesh)
    assert padded.shape == (64, 3) and float(np.asarray(mask).sum()) == 64.0
    assert_split_over_data(padded, "padded")
