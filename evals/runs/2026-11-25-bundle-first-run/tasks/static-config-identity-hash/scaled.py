"""A static config that equal values share: one compilation for every Config(scale=2.0, shift=1.0).

jit caches a program per value of each static argument, looked up by hash() and ==. A plain class
inherits object.__hash__ / object.__eq__, which compare *identity*, so every freshly built
Config(2.0, 1.0) is a new cache key and the function is traced and compiled again on each call.

A frozen dataclass generates __eq__ and __hash__ from its fields, so two configs with the same numbers
are the same key and reuse the compiled program. "Frozen" matters twice: a plain @dataclass sets
__hash__ to None (jit then rejects it as a non-hashable static argument), and a key that could be
mutated after being cached would break the cache. Derive a changed copy with dataclasses.replace.

Each *distinct* config still compiles once (that is what static means). If the numbers change often
(a sweep over scales), pass them as traced arrays instead of static fields.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    """Hashed and compared by value: Config(2.0, 1.0) == Config(2.0, 1.0), same hash."""

    scale: float
    shift: float

    def __post_init__(self) -> None:
        # Normalise to Python floats so Config(2, 1) and Config(2.0, 1.0) are one key with one program,
        # and NumPy/JAX scalars (not hashable by value, or not hashable at all) never end up in the key.
        object.__setattr__(self, "scale", float(self.scale))
        object.__setattr__(self, "shift", float(self.shift))


@partial(jax.jit, static_argnames="config")
def transform(x: jax.Array, config: Config) -> jax.Array:
    """x * config.scale + config.shift; `config` is static (Python branching on it is allowed)."""
    return x * config.scale + config.shift


if __name__ == "__main__":
    import jax.numpy as jnp

    compiles = []

    def on_event(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(str(kwargs.get("fun_name")))

    jax.monitoring.register_event_duration_secs_listener(on_event)
    x = jnp.arange(4.0)
    for _ in range(5):
        out = transform(x, Config(scale=2.0, shift=1.0))  # a fresh, equal config every call
    transform(x, config=Config(2, 1))  # same numbers, ints: still the same key
    jax.block_until_ready(out)
    jax.monitoring.unregister_event_duration_listener(on_event)
    assert jnp.array_equal(out, x * 2.0 + 1.0)
    assert compiles.count("jit(transform)") == 1, compiles
    print("compiled", compiles.count("jit(transform)"), "time(s) for 6 calls with equal configs")
