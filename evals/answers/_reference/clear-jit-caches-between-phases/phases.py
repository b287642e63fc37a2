"""Release every compiled program held by jax.jit between phases of a long-running program."""

import jax


def release_compiled_programs() -> None:
    """Empty all of JAX's compilation and tracing caches; the next call of any jitted function recompiles."""
    jax.clear_caches()
