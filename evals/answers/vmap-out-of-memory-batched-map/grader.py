"""Grade `smoothing.smooth`: the rows of a full vmap, with compiled temporaries far below its n x n weights."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest


def smooth_row(p: jax.Array, points: jax.Array) -> jax.Array:
    weights = jax.nn.softmax(-jnp.sum((p - points) ** 2, axis=-1))
    return weights @ points


def full_vmap(points: jax.Array) -> jax.Array:
    """Every point at once: the values to match."""
    return jax.vmap(smooth_row, in_axes=(0, None))(points, points)


@pytest.mark.parametrize("n, batch_size", [(50, 8), (48, 16), (50, 50), (50, 64)])
def test_rows_equal_a_full_vmap(answer, n, batch_size):
    points = jax.random.normal(jax.random.key(n), (n, 3))
    got = jax.jit(answer.smooth, static_argnums=1)(points, batch_size)
    assert got.shape == (n, 3)
    np.testing.assert_allclose(np.asarray(got), np.asarray(full_vmap(points)), rtol=1e-5, atol=1e-6)


def test_compiled_temporaries_hold_a_batch_not_all_points(answer):
    n, batch_size = 2000, 64
    points = jax.random.normal(jax.random.key(0), (n, 8))
    compiled = jax.jit(answer.smooth, static_argnums=1).lower(points, batch_size).compile()
    temp = compiled.memory_analysis().temp_size_in_bytes
    all_weights = n * n * 4  # what a full vmap materialises
    assert temp * 8 < all_weights, (
        f"{temp} temporary bytes for n={n}, batch_size={batch_size}: the program still holds "
        f"weights for far more than one batch of points ({all_weights} bytes is all of them)")
