"""Call a routine with JAX's 64-bit mode off, while the rest of the program keeps x64 on.

`jax_enable_x64` decides the dtype of every value whose dtype nobody fixed: `jnp.array(1.0)`,
`jnp.zeros(n)`, `jnp.arange(n)`, Python-float constants, NumPy float64 inputs. A routine validated in
32-bit mode that relies on those defaults silently runs in float64 when the flag is on.

`jax.enable_x64(False)` is the scoped form of the flag (it replaced the removed
`jax.experimental.disable_x64` / `jax.experimental.enable_x64` context managers). Inside the block
default-typed values are 32-bit; on exit, normal or by exception, the previous setting is restored.
The flag is part of JAX's trace context, so a `jax.jit`-compiled `fn` is traced and compiled
separately for the 32-bit setting (once, then cached) and never reuses a float64 program.

Inputs: the flag only changes what `fn` itself creates. If you pass arrays that were created as
float64 while x64 was on, cast them yourself (`x.astype(jnp.float32)`) if the routine expects
float32 inputs; `call_in_32bit` does not touch your arguments.
"""

from __future__ import annotations

from typing import Any, Callable

import jax


def call_in_32bit(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call fn(*args, **kwargs) with 64-bit mode off and return its result.

    Arrays and constants that fn creates with default dtypes are 32-bit (fn may be jitted).
    Afterwards the 64-bit setting is whatever it was before, also when fn raises (the exception
    propagates unchanged).
    """
    with jax.enable_x64(False):
        return fn(*args, **kwargs)


if __name__ == "__main__":
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)  # what the program does at startup

    @jax.jit
    def third_party(x):
        scale = jnp.array(0.1)          # default dtype: depends on the flag
        return jnp.sum(jnp.arange(4.0) * scale) + x

    print(third_party(1.0).dtype)                  # float64
    print(call_in_32bit(third_party, 1.0).dtype)   # float32
    print(jnp.ones(2).dtype)                       # float64: x64 is still on

    def broken():
        jnp.ones(2)
        raise RuntimeError("boom")

    try:
        call_in_32bit(broken)
    except RuntimeError:
        pass
    assert jax.config.jax_enable_x64 and jnp.ones(2).dtype == jnp.float64
