"""Run one call with JAX's 64-bit mode switched off, then restore it.

Usage::

    import jax
    jax.config.update("jax_enable_x64", True)   # program-wide, for the ODE solver

    from x64_scope import call_in_32bit
    result = call_in_32bit(third_party_routine, arg1, arg2, option=3)

Inside the call, arrays and constants that the routine creates with default dtypes
(``jnp.zeros(n)``, ``jnp.array(1.0)``, ``jnp.arange(k)``, Python-float constants, ...) are
float32/int32, exactly as in the 32-bit mode the routine was validated in. If the routine is
``jax.jit``-compiled, the x64 setting is part of jit's cache key, so it is traced and compiled
as a separate, 32-bit specialisation; your 64-bit call sites of other functions are unaffected.

How the mode is switched
------------------------
JAX keeps ``jax_enable_x64`` as a config *state* that can be overridden in a scope by a context
manager. That override is thread-local and is undone on exit, also when an exception is
propagating, so the global setting (on, in your program) is never touched. Depending on the JAX
version that context manager is exposed as ``jax.enable_x64(False)`` (current JAX) or
``jax.experimental.disable_x64()`` (older JAX, now deprecated). As a last resort (only if neither
exists) the global flag is flipped with ``jax.config.update`` inside ``try/finally``; that
fallback is process-wide, so it is guarded by a lock.

Note on inputs: the helper does not convert ``args``. If you pass float64 arrays produced by the
64-bit part of your program, cast them first (e.g. ``x.astype(jnp.float32)``) if the routine
must see 32-bit inputs too; values the routine builds itself are 32-bit either way.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["call_in_32bit", "x64_disabled"]

_GLOBAL_FALLBACK_LOCK = threading.RLock()


def _x64_is_effectively_on() -> bool:
    """True if default dtypes are 64-bit in the current (thread-local) context."""
    return jax.dtypes.canonicalize_dtype(jnp.float64) == np.dtype(np.float64)


@contextlib.contextmanager
def _global_flag_off() -> Iterator[None]:
    """Fallback: flip the global flag and always put the old value back."""
    with _GLOBAL_FALLBACK_LOCK:
        previous = bool(jax.config.jax_enable_x64)
        jax.config.update("jax_enable_x64", False)
        try:
            yield
        finally:
            jax.config.update("jax_enable_x64", previous)


def _scoped_context_factories():
    """Candidate thread-local context managers that turn x64 off, newest API first."""
    # Current JAX: jax.enable_x64(bool) is a context manager over the config state.
    enable_x64 = getattr(jax, "enable_x64", None)
    if callable(enable_x64):
        yield lambda: enable_x64(False)
    # Older JAX: jax.experimental.disable_x64() / enable_x64(new_val).
    try:
        import jax.experimental as jex  # noqa: PLC0415
    except ImportError:  # pragma: no cover
        return
    disable = getattr(jex, "disable_x64", None)
    if callable(disable):
        yield disable
    old_enable = getattr(jex, "enable_x64", None)
    if callable(old_enable):
        yield lambda: old_enable(False)


@contextlib.contextmanager
def x64_disabled() -> Iterator[None]:
    """Context manager: JAX 64-bit mode is off inside, restored on exit (also on error)."""
    if not _x64_is_effectively_on():
        # Already 32-bit here; nothing to switch.
        yield
        return

    for make_ctx in _scoped_context_factories():
        try:
            ctx = make_ctx()
            entered = ctx.__enter__()  # noqa: F841
        except Exception:  # API missing/changed in this version: try the next one
            continue
        try:
            if _x64_is_effectively_on():
                # This context manager did not actually switch the mode; undo and try next.
                ctx.__exit__(None, None, None)
                continue
        except BaseException:
            ctx.__exit__(None, None, None)
            raise
        # Scoped override is active: run the body and always exit the context.
        with contextlib.ExitStack() as stack:
            stack.push(ctx)  # calls ctx.__exit__ with the exception info, if any
            yield
        return

    # Last resort: process-wide flag flip with guaranteed restore.
    with _global_flag_off():
        yield


def call_in_32bit(fn: Callable, *args, **kwargs) -> Any:
    """Call ``fn(*args, **kwargs)`` with JAX's 64-bit mode off, and return its result.

    Arrays and constants that ``fn`` creates with default dtypes are 32-bit during the call
    (``fn`` may be ``jax.jit``-compiled: it then traces/compiles a 32-bit specialisation).
    Afterwards the 64-bit setting is exactly what it was before, also when ``fn`` raises; the
    exception propagates unchanged.

    Note: JAX dispatches asynchronously, but the dtypes of everything ``fn`` builds are fixed
    at trace/dispatch time, which happens inside the scope, so the returned arrays are 32-bit.
    """
    with x64_disabled():
        return fn(*args, **kwargs)
