"""Run one call with JAX's 64-bit mode off while the rest of the program keeps x64 on.

The program enables x64 once at start-up (``jax.config.update("jax_enable_x64", True)``) for the
ODE solver. A third-party routine that was validated in 32-bit mode creates its own arrays and
constants with default dtypes (``jnp.zeros(n)``, ``jnp.array(0.5)``, ``jnp.arange(k)``, NumPy
float64 inputs it converts itself...). Under x64 those default to float64/int64, so its numbers
change. ``call_in_32bit`` switches the flag off only for the duration of that call.

It uses ``jax.enable_x64`` (jax 0.12.0.1), a context manager that sets the flag for the block and
restores the previous value when the block exits -- normally or through an exception. The older
``jax.experimental.disable_x64`` / ``jax.experimental.enable_x64`` were removed in 0.12.0.1; the
context manager is preferred over a hand-written ``jax.config.update(...)`` pair in
``try``/``finally``, which would rewrite the program-wide default rather than scope the setting.
"""

from collections.abc import Callable
from typing import Any

import jax

__all__ = ["call_in_32bit"]


def call_in_32bit(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` with 64-bit mode off and return its result.

    While ``fn`` runs, default-typed values it creates are 32-bit (``float32``/``int32``), also
    when ``fn`` is ``jax.jit``-compiled: the x64 flag is part of jit's trace context, so a jitted
    ``fn`` is traced and compiled once for the 32-bit setting and that compilation is cached next
    to (not instead of) any 64-bit one. Afterwards the flag has the value it had before the call
    (on, in this program), also when ``fn`` raises; the exception propagates unchanged.

    Note: the flag changes the dtype of values whose dtype nobody fixed. Arrays you pass in keep
    the dtype they already have -- if you hand the routine float64 arrays created under x64, cast
    them first (``x.astype(jnp.float32)``) so its inputs match what it was validated with.
    """
    with jax.enable_x64(False):
        return fn(*args, **kwargs)
