"""Grade `rowsum.row_sums`: a column-tiled Pallas row sum that is right when blocks stick out."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def pallas_calls(jaxpr) -> list:
    """Every pallas_call equation in a jaxpr, including those nested in jit or other sub-jaxprs."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "pallas_call":
            found.append(eqn)
        for value in eqn.params.values():
            inner = getattr(value, "jaxpr", value)
            if hasattr(inner, "eqns"):
                found.extend(pallas_calls(inner))
    return found


def matrix(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(rows, cols)).astype(np.float32)


@pytest.mark.parametrize("cols, block_cols", [(100, 32), (100, 7), (100, 100), (96, 32)])
def test_row_sums_match_numpy(answer, cols, block_cols):
    x = matrix(16, cols, seed=cols + block_cols)
    got = np.asarray(answer.row_sums(jnp.asarray(x), block_cols))
    assert got.shape == (16,)
    assert np.all(np.isfinite(got)), "NaN or inf: the padding of the last block was summed"
    np.testing.assert_allclose(got, x.sum(axis=1), rtol=1e-5, atol=1e-4)


def test_the_kernel_tiles_the_columns(answer):
    x = jnp.asarray(matrix(8, 100))
    calls = pallas_calls(jax.make_jaxpr(lambda v: answer.row_sums(v, 32))(x).jaxpr)
    assert calls, "no pallas_call in the program"
    grid = calls[0].params["grid_mapping"].grid
    assert int(np.prod(grid)) == 4, f"grid {grid}: expected pl.cdiv(100, 32) = 4 column blocks"
    in_block = calls[0].params["grid_mapping"].block_mappings[0].block_shape
    assert [getattr(d, "block_size", d) for d in in_block] == [8, 32]
