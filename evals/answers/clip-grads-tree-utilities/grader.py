"""Grade `clipping`: global norm and clipping by it over a nested pytree, eagerly and under jit."""

import jax
import jax.numpy as jnp
import numpy as np


def grads() -> dict:
    return {
        "dense": {"w": jnp.array([[3.0, 0.0], [0.0, 4.0]]), "b": jnp.array([0.0, 12.0])},
        "pair": (jnp.array(1.0), jnp.array([2.0, 2.0])),
        "frozen": None,
    }


def numpy_norm(tree) -> float:
    return float(np.sqrt(sum(np.sum(np.asarray(leaf) ** 2) for leaf in jax.tree.leaves(tree))))


def test_global_norm(answer):
    np.testing.assert_allclose(float(answer.global_norm(grads())), numpy_norm(grads()), rtol=1e-6)


def check_clipped(clipped, max_norm: float) -> None:
    original = grads()
    assert jax.tree.structure(clipped) == jax.tree.structure(original), "the pytree structure changed"
    assert clipped["frozen"] is None
    factor = min(1.0, max_norm / numpy_norm(original))
    for got, leaf in zip(jax.tree.leaves(clipped), jax.tree.leaves(original)):
        np.testing.assert_allclose(np.asarray(got), np.asarray(leaf) * factor, rtol=1e-6)


def test_clip_above_and_below_the_threshold(answer):
    for max_norm in [1.0, 5.0, 100.0]:
        check_clipped(answer.clip_by_global_norm(grads(), max_norm), max_norm)


def test_clip_under_jit(answer):
    clipped = jax.jit(answer.clip_by_global_norm, static_argnames="max_norm")(grads(), max_norm=2.0)
    check_clipped(clipped, 2.0)
