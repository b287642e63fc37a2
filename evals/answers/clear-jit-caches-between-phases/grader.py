"""Grade `phases.release_compiled_programs`: every jit cache is emptied, and functions still work."""

import jax
import jax.numpy as jnp
import numpy as np

from grading import count_compilations


@jax.jit
def normalize(v):
    return v / jnp.linalg.norm(v)


@jax.jit
def gram(m):
    return m @ m.T


def first_phase() -> None:
    for n in range(2, 7):
        normalize(jnp.arange(1.0, n + 1.0)).block_until_ready()
        gram(jnp.ones((n, 3))).block_until_ready()


def test_every_jit_cache_is_emptied(answer):
    first_phase()
    assert normalize._cache_size() == 5 and gram._cache_size() == 5
    answer.release_compiled_programs()
    assert normalize._cache_size() == 0, "normalize still holds its compiled programs"
    assert gram._cache_size() == 0, "gram still holds its compiled programs"


def test_functions_compile_again_and_give_the_same_results(answer):
    first_phase()
    answer.release_compiled_programs()
    v = jnp.arange(1.0, 5.0)
    with count_compilations() as compiled:
        out = normalize(v)
        out.block_until_ready()
    assert compiled.count >= 1, "nothing compiled: the old executable was still cached"
    np.testing.assert_allclose(np.asarray(out), np.arange(1.0, 5.0) / np.linalg.norm(np.arange(1.0, 5.0)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gram(jnp.ones((2, 3)))), np.full((2, 2), 3.0))
