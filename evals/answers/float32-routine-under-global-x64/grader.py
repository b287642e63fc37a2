"""Grade `x64_scope.call_in_32bit`: the call runs with 64-bit mode off, the program keeps it on."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def x64_on():
    """The program's setting: 64-bit mode on globally."""
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


def x64_is_on() -> bool:
    return jnp.asarray(1.0).dtype == jnp.float64 and jax.config.read("jax_enable_x64")


@jax.jit
def routine() -> jax.Array:
    """Default-typed constants: 1e8 + 1 is not representable in float32, so this is 0.0 there, 1.0 in float64."""
    return jnp.asarray(1e8) + 1.0 - 1e8


def scaled_draw(key: jax.Array, *, scale: float) -> jax.Array:
    return scale * jax.random.uniform(key, (5,))


def test_the_routine_runs_in_32_bit(answer):
    assert x64_is_on()
    assert routine().dtype == jnp.float64 and float(routine()) == 1.0  # as the program sees it
    out = answer.call_in_32bit(routine)
    assert out.dtype == jnp.float32, f"dtype {out.dtype}: the routine did not run with 64-bit mode off"
    assert float(out) == 0.0, f"{float(out)}: the routine computed in float64 (its result was cast afterwards)"
    assert x64_is_on(), "64-bit mode is off after the call"


def test_arguments_and_a_default_dtype_draw(answer):
    key = jax.random.key(3)
    out = answer.call_in_32bit(scaled_draw, key, scale=2.0)
    jax.config.update("jax_enable_x64", False)
    want = np.asarray(scaled_draw(key, scale=2.0))
    jax.config.update("jax_enable_x64", True)
    assert out.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(out), want)
    assert x64_is_on()


def test_64_bit_mode_is_restored_when_the_routine_raises(answer):
    def failing():
        jnp.ones(3)
        raise ValueError("diverged")

    with pytest.raises(ValueError, match="diverged"):
        answer.call_in_32bit(failing)
    assert x64_is_on(), "64-bit mode stayed off after the routine raised"
