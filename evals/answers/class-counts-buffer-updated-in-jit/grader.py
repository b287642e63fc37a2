"""Grade `class_counts`: a jax.Ref buffer that a jitted step updates in place, compiled once."""

import jax
import jax.numpy as jnp
import numpy as np

from grading import count_compilations

BATCHES = [np.array([0, 1, 1, 4, 4, 4], np.int32), np.array([2, 2, 0, 1, 3, 3], np.int32),
           np.array([4, 0, 0, 0, 2, 1], np.int32)]


def test_the_buffer_is_a_jax_ref_of_zeros(answer):
    counts = answer.make_counts(5)
    assert isinstance(counts, jax.Ref), f"{type(counts).__name__}: not a JAX mutable array reference (jax.Ref)"
    start = answer.read_counts(counts)
    assert isinstance(start, jax.Array) and not isinstance(start, jax.Ref)
    assert start.dtype == jnp.int32 and start.shape == (5,) and not np.any(np.asarray(start))


def test_jitted_updates_land_in_the_same_buffer(answer):
    counts = answer.make_counts(5)
    answer.count_batch(counts, jnp.asarray(BATCHES[0]))
    with count_compilations() as compiled:
        for labels in BATCHES[1:]:
            answer.count_batch(counts, jnp.asarray(labels))
        now = np.asarray(answer.read_counts(counts))
    want = np.bincount(np.concatenate(BATCHES), minlength=5)
    np.testing.assert_array_equal(now, want, err_msg="the buffer does not hold the running counts")
    assert compiled.count == 0, f"{compiled.count} compilations after the first call: the step recompiles"


def test_buffers_are_independent(answer):
    first, second = answer.make_counts(3), answer.make_counts(3)
    answer.count_batch(first, jnp.asarray([0, 2, 2], jnp.int32))
    answer.count_batch(second, jnp.asarray([1], jnp.int32))
    np.testing.assert_array_equal(np.asarray(answer.read_counts(first)), [1, 0, 2])
    np.testing.assert_array_equal(np.asarray(answer.read_counts(second)), [0, 1, 0])
