"""Grade `windows.extract_window`: NumPy-slice values, with a traced start, compiled once for all starts."""

import jax
import jax.numpy as jnp
import numpy as np

from grading import count_compilations

SERIES = np.sin(np.arange(12, dtype=np.float32))
SIZE = 4


def test_eager_windows_match_numpy(answer):
    for start in [0, 3, 8]:
        got = answer.extract_window(jnp.asarray(SERIES), start, SIZE)
        np.testing.assert_array_equal(np.asarray(got), SERIES[start:start + SIZE])


def test_traced_start_under_jit_compiles_once(answer):
    window = jax.jit(answer.extract_window, static_argnames="size")
    series = jnp.asarray(SERIES)
    starts = [jnp.asarray(start, jnp.int32) for start in range(7)]
    with count_compilations() as compiled:
        got = [np.asarray(window(series, start, size=SIZE)) for start in starts]
    for start, window_values in enumerate(got):
        np.testing.assert_array_equal(window_values, SERIES[start:start + SIZE])
    assert compiled.count <= 1, f"{compiled.count} XLA compilations for 7 traced starts"


def test_vmap_over_starts(answer):
    starts = jnp.array([0, 2, 5, 8], jnp.int32)
    got = jax.vmap(lambda start: answer.extract_window(jnp.asarray(SERIES), start, SIZE))(starts)
    want = np.stack([SERIES[s:s + SIZE] for s in [0, 2, 5, 8]])
    np.testing.assert_array_equal(np.asarray(got), want)
