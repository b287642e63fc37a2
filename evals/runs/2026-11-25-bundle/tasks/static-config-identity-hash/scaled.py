"""A static config that equal instances share, so jit compiles once per distinct config value.

Why it recompiled: jit looks a static argument up in its cache with `hash()` and `==`. A plain class
inherits `object.__hash__` / `object.__eq__`, which compare *identity*, so every fresh
`Config(scale=2.0, shift=1.0)` is a new cache key: a new trace and a new XLA compilation on every
call, although the numbers are the same.

Fix: make the config hash and compare by value. A frozen dataclass generates `__eq__` and `__hash__`
from its fields and is immutable, which jit requires of static arguments (a cache key must never
change; a plain, non-frozen `@dataclass` sets `__hash__ = None` and jit rejects it with
"Non-hashable static arguments are not supported"). Derive a modified config with
`dataclasses.replace(config, scale=3.0)`.

Each *distinct* config still compiles once (that is the point of static: the function may branch on
it in Python). If the numbers change often and no Python branching depends on them, pass them as
traced arrays instead (e.g. a `jax.tree_util.register_dataclass` pytree) so new values reuse the
program too.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import jax


@dataclasses.dataclass(frozen=True)
class Config:
    """Hashed and compared by (scale, shift): two configs with the same numbers are interchangeable."""

    scale: float
    shift: float


@partial(jax.jit, static_argnames="config")
def transform(x: jax.Array, config: Config) -> jax.Array:
    """x * config.scale + config.shift; compiled once per distinct config value (and input shape)."""
    # config is a plain Python object here (not traced), so Python `if` on its fields is allowed.
    return x * config.scale + config.shift


if __name__ == "__main__":
    import jax.numpy as jnp

    compiles = []

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(kwargs.get("fun_name"))

    x = jnp.arange(4.0)
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        for _ in range(5):
            out = transform(x, Config(scale=2.0, shift=1.0))  # a fresh, equal config every call
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert jnp.allclose(out, x * 2.0 + 1.0)
    assert Config(2.0, 1.0) == Config(scale=2.0, shift=1.0)
    assert hash(Config(2.0, 1.0)) == hash(Config(scale=2.0, shift=1.0))
    print("compilations of transform:", compiles.count("jit(transform)"))  # 1
    assert compiles.count("jit(transform)") == 1
